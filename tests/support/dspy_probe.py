"""A fresh process that fingerprints DSPy, optionally lets tribunal judge an item, and calls a plain ``dspy.LM``.

``python -m tests.support.dspy_probe MODE JUDGE_API_BASE PLAIN_API_BASE`` prints one JSON object:

- ``plain``: what a plain ``dspy.LM("openai/x", api_base=PLAIN_API_BASE, cache=True)`` gives: its
  answers (a repeated call: from the cache), a typed ``Predict`` through DSPy's ``ChatAdapter``, the
  response-cache key of its request, and the warnings DSPy said;
- in MODE ``tribunal`` (before the plain LM): ``changed``, every piece of DSPy's process-level state
  (:func:`fingerprint`) that differs after importing tribunal, building a judge with tribunal's LM
  (at JUDGE_API_BASE) and judging one item; ``judged``, that item's status and score.

MODE ``plain`` never imports tribunal: it is the reference. Nothing here imports tribunal at import time.
"""

from __future__ import annotations

import importlib
import json
import logging
import sys
import types
import warnings
from typing import Any

import pydantic

PATCHED_MODULES = (  # the modules tribunal used to patch, imported before the first fingerprint
    "dspy.clients.execution", "dspy.clients.cache", "dspy.clients.capabilities", "dspy.clients.costs",
    "dspy.clients.model_metadata", "dspy.clients.base_lm", "dspy.clients.lm", "dspy.adapters.utils",
    "dspy.adapters.base", "dspy.adapters.chat_adapter", "dspy.adapters.json_adapter", "dspy.adapters.xml_adapter",
    "dspy.primitives.repl_types", "dspy.clients.engines.lm15_engine", "dspy._vendor.lm15.transports",
    "dspy._vendor.lm15.transports._sync", "dspy._vendor.lm15.transports._async",
    "dspy._vendor.lm15.transports._fetch", "dspy._vendor.lm15.transports._limits",
)

THIRD_PARTY = ("numpy", "scipy", "scipy.sparse", "scipy.stats", "pandas", "mlflow")
"""Libraries tribunal imports that set warnings filters of their own on import (numpy's, scipy's): imported
first, in both modes, so the fingerprint sees what tribunal does, and both processes hold the same libraries."""
TRANSIENT_SETTINGS = ("trace",)
"""DSPy's own record of the predictor calls made on the main thread: any DSPy program's calls add to it."""


def _named(module: types.ModuleType) -> dict[str, Any]:
    """Identity of every function, class and module a DSPy module holds, and of every member of its classes."""
    state: dict[str, Any] = {}
    for name, value in list(vars(module).items()):
        if callable(value) or isinstance(value, types.ModuleType):
            state[f"{module.__name__}.{name}"] = id(value)
        if isinstance(value, type) and value.__module__ == module.__name__:
            for member, attr in list(vars(value).items()):
                state[f"{module.__name__}.{name}.{member}"] = id(attr)
    return state


def fingerprint() -> dict[str, Any]:
    """DSPy's process-level state: what a library loaded into someone's DSPy process could change."""
    import dspy
    from dspy.clients import execution

    state: dict[str, Any] = {}
    for name, module in sorted(sys.modules.items()):
        if (name == "dspy" or name.startswith("dspy.")) and isinstance(module, types.ModuleType):
            state.update(_named(module))
    state["IGNORED_CACHE_KEYS"] = list(execution.IGNORED_CACHE_KEYS)
    state["dspy.cache"] = id(dspy.cache)
    state["warnings.filters"] = [repr(entry) for entry in warnings.filters]
    state["dspy.settings"] = {key: repr(value) for key, value in dspy.settings.config.items()
                              if key not in TRANSIENT_SETTINGS}
    loggers = logging.root.manager.loggerDict.items()
    state["logging"] = {name: (logger.level, logger.disabled) for name, logger in loggers
                        if isinstance(logger, logging.Logger) and name.lower().startswith(("dspy", "litellm"))}
    state["logging.disable"] = logging.root.manager.disable
    return state


def _judge(judge_api_base: str) -> dict[str, Any]:
    """Build a GEMBA-ESA judge on tribunal's LM at ``judge_api_base`` and judge one item."""
    from tribunal.eval.mt.items import JudgeItem
    from tribunal.eval.mt.judging import judge_item
    from tribunal.runner.meter import attach_relay
    from tribunal.programs.lm import LMSettings, build_lm
    from tribunal.programs.mqm.esa import GembaESAJudge
    from tribunal.programs.mqm.roles import RoleLMs

    lm = attach_relay(build_lm(LMSettings(model="openai/judge", api_base=judge_api_base, num_retries=0)))
    item = JudgeItem(key="1", source="The cat sat on the mat.", translation="Die Katze sass auf der Matte.")
    result = judge_item(GembaESAJudge(lms=RoleLMs(lm)), item, {"source_lang": "English", "target_lang": "German"})
    return {"status": result.status, "score": result.score, "reason": getattr(result, "reason", None)}


class Dish(pydantic.BaseModel):
    name: str
    spicy: bool


def _plain(api_base: str) -> dict[str, Any]:
    """A plain ``dspy.LM``: answers, a cached repeat, a typed Predict, its cache key and DSPy's warnings."""
    import dspy
    from dspy.clients.execution import IGNORED_CACHE_KEYS, prepare

    class Menu(dspy.Signature):
        """Pick the dish."""

        dishes: list[Dish] = dspy.InputField()
        choice: Dish = dspy.OutputField()

    with warnings.catch_warnings(record=True) as said:
        lm = dspy.LM("openai/x", api_base=api_base, api_key="not-a-secret", cache=True, num_retries=0,
                     temperature=0.0)
        first, again = lm("Say hi."), lm("Say hi.")
        with dspy.context(lm=lm, adapter=dspy.ChatAdapter()):
            picked = dspy.Predict(Menu)(dishes=[Dish(name="dal", spicy=True), Dish(name="rice", spicy=False)])
        lm("Say hi.", rollout_id=7)  # DSPy warns: a rollout id has no effect at temperature 0
    key = dspy.cache.cache_key(prepare(lm, "Say hi.", None, {}).key(lm, False), IGNORED_CACHE_KEYS)
    return {"first": first, "again": again, "choice": picked.choice.model_dump(), "key": key,
            "cached": dspy.cache.get(prepare(lm, "Say hi.", None, {}).key(lm, False), IGNORED_CACHE_KEYS) is not None,
            "history": [entry["outputs"] for entry in lm.history],
            "warnings": sorted(f"{w.category.__name__}: {w.message}" for w in said)}


def main(mode: str, judge_api_base: str, plain_api_base: str) -> dict[str, Any]:
    """The probe's findings (see the module docstring)."""
    for name in THIRD_PARTY + PATCHED_MODULES:
        importlib.import_module(name)
    report: dict[str, Any] = {}
    if mode == "tribunal":
        before = fingerprint()
        importlib.import_module("tribunal.scorers")  # what a researcher imports into their own process
        report["judged"] = _judge(judge_api_base)
        after = fingerprint()
        report["changed"] = sorted(key for key in before if before[key] != after.get(key))
    report["plain"] = _plain(plain_api_base)
    report["tribunal_imported"] = "tribunal" in sys.modules
    return report


if __name__ == "__main__":
    print(json.dumps(main(*sys.argv[1:4])))

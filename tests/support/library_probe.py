"""A fresh DSPy user's process that lets tribunal judge as a library, and reports what of the process changed.

``python -m tests.support.library_probe JUDGE_API_BASE EXPORT_DIR`` prints one JSON object:

- ``before`` / ``after``: :func:`snapshot` of the process (DSPy's settings, who owns ``dspy.configure``,
  the warnings filters, the root logger) taken after ``import dspy`` and after tribunal has, in turn,
  been imported (``tribunal.scorers``), judged one item through :class:`~tribunal.scorers.MQMJudge`,
  through the pyfunc model (:class:`~tribunal.optimizers.judge_model.TunedJudge`, on an export written
  in EXPORT_DIR) and through the judging service (:func:`~tribunal.service.judging.judge_items`);
- ``judged``: what each door answered (a score, or why not);
- ``configure_from_new_thread``: ``"ok"``, or the error ``dspy.configure(lm=...)`` raised in a new thread.

Nothing here imports tribunal before the first snapshot; the LM is the loopback server at JUDGE_API_BASE,
with DSPy's cache off (``cache=False`` on every LM tribunal builds).
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
import warnings
from pathlib import Path
from typing import Any

import dspy

SETTINGS_MODULE = sys.modules["dspy.dsp.utils.settings"]  # the module (``dspy.dsp.utils.settings`` is the object)
TRANSIENT_SETTINGS = ("trace",)  # DSPy's own record of the predictor calls made on the main thread
KEY_ENV = "PROBE_JUDGE_KEY"


def snapshot() -> dict[str, Any]:
    """What a library loaded into someone's DSPy process could leave changed."""
    config = {k: repr(v) for k, v in dspy.settings.config.items() if k not in TRANSIENT_SETTINGS}
    root = logging.getLogger()
    return {"config_owner_thread_id": SETTINGS_MODULE.config_owner_thread_id,
            "config_owner_async_task": repr(SETTINGS_MODULE.config_owner_async_task),
            "dspy.settings": config, "dspy.settings.callbacks": [repr(c) for c in dspy.settings.callbacks],
            "warnings.filters": [repr(f) for f in warnings.filters],
            "logging.root": {"level": root.level, "handlers": [repr(h) for h in root.handlers],
                             "disabled": root.disabled, "manager.disable": logging.root.manager.disable}}


def _scorer(api_base: str) -> dict[str, Any]:
    from tribunal.scorers import MQMJudge

    judge = MQMJudge(program="mmad", lm="openai/judge", api_base=api_base, api_key_env=KEY_ENV, cache=False, demos=0)
    feedback = judge(inputs={"source": "Der Hund schläft.", "source_lang": "German", "target_lang": "English"},
                     outputs="The dog sleeps.")
    return {"value": feedback.value, "error": str(feedback.error) if feedback.error else None}


def _pyfunc(api_base: str, folder: Path) -> dict[str, Any]:
    import pandas as pd
    from types import SimpleNamespace

    from tribunal.data.program_export import export_document, write_export
    from tribunal.optimizers.judge_model import TunedJudge
    from tribunal.optimizers.program_settings import build_configured

    config = {"rounds": 1}
    path = write_export(export_document(build_configured("mmad", config), "mmad", config, {}), folder / "tuned.json")
    model = TunedJudge()
    model.load_context(SimpleNamespace(artifacts={"program": str(path)}))
    frame = pd.DataFrame([{"source": "Der Hund schläft.", "translation": "The dog sleeps.", "source_lang": "de",
                           "target_lang": "en"}])
    row = model.predict(None, frame, params={"lm": "openai/judge", "api_base": api_base, "api_key_env": KEY_ENV,
                                             "cache": False}).iloc[0]
    return {"score": None if row["score"] != row["score"] else float(row["score"]),
            "unscored_reason": row["unscored_reason"]}


def _service(api_base: str) -> dict[str, Any]:
    from tribunal.core.mt_item import JudgeItem
    from tribunal.service.judging import JobRequest, configure, judge_items
    from tribunal.programs.lm import LMSettings

    lm = LMSettings(model="openai/judge", api_base=api_base, api_key_env=KEY_ENV, cache=False)
    config = configure(JobRequest(given={"lp": "de-en", "program": "gemba-mqm", "lm": lm, "demos": 0,
                                         "concurrency": 1}))
    results = judge_items(config, [JudgeItem("1", "Der Hund schläft.", "The dog sleeps.")],
                          {"source_lang": "German", "target_lang": "English"})
    return {key: {"status": r.status, "score": r.score} for key, r in results.items()}


def configure_from_new_thread() -> str:
    """``"ok"`` when a new thread may still call ``dspy.configure`` (no thread owns DSPy's settings)."""
    outcome: list[str] = []

    def configure() -> None:
        try:
            dspy.configure(lm=dspy.LM("openai/user-model", api_key="not-a-secret", cache=False))
            outcome.append("ok")
        except Exception as err:  # reported, not raised: the probe's answer
            outcome.append(f"{type(err).__name__}: {err}")

    thread = threading.Thread(target=configure)
    thread.start()
    thread.join()
    return outcome[0]


def main(api_base: str, folder: str) -> dict[str, Any]:
    """The probe's findings (see the module docstring)."""
    os.environ[KEY_ENV] = "not-a-secret"
    before = snapshot()
    judged = {"scorer": _scorer(api_base), "pyfunc": _pyfunc(api_base, Path(folder)), "service": _service(api_base)}
    after = snapshot()
    return {"before": before, "after": after, "judged": judged, "configure_from_new_thread": configure_from_new_thread()}


if __name__ == "__main__":
    print(json.dumps(main(*sys.argv[1:3]), default=str))

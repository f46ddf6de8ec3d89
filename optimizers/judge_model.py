"""A tuned judge as an MLflow pyfunc model, built from code: no pickle, the sealed export as its artifact.

``tribunal optimize`` logs every tuned program with :func:`tribunal.optimizers.judge_model_log.log_judge_model`:
MLflow copies :mod:`tribunal.optimizers.judge_model_code` (a file that only calls
``mlflow.models.set_model(TunedJudge())``) and the export ``program.json`` into the model. Loading
(``mlflow.pyfunc.load_model("models:/tribunal-gemba-mqm/3")``) runs that file and
:meth:`TunedJudge.load_context`, which verifies the export's seal, program and structure
(:func:`tribunal.data.program_export.read_export`) before anything else.

``predict`` takes a DataFrame of items and returns one row per item:

- MT judges: columns ``source, translation, source_lang, target_lang`` (names or codes: ``zh`` is
  Chinese) -> ``score`` (MQM), ``errors`` (JSON list, spans with character offsets as in ``errors.jsonl``),
  ``unscored_reason`` (None when scored). The
  program is built and run exactly as ``tribunal mt evaluate --program EXPORT`` does, by the judging
  service (:func:`tribunal.service.judging.configure`, :func:`~tribunal.service.judging.judge_items`), so
  the same items on the same LM get the same requests and scores. Identical items are judged once.
- the equivalence judge: ``hypothesis_a, hypothesis_b`` -> ``verdict`` (``same`` / ``different``),
  ``score``, ``unscored_reason``.

The LM is chosen at predict time, never stored in the model: ``params`` ``lm``, ``api_base``,
``api_key_env`` (the *name* of the variable holding the key), ``concurrency``, ``cache``; unset
ones fall back to ``TRIBUNAL_LM``, ``TRIBUNAL_API_BASE``, ``TRIBUNAL_API_KEY_ENV``.
"""

from __future__ import annotations

import json
import os
import threading
from typing import Any

import mlflow
import pandas as pd  # the predict type hint, which MLflow reads (a DataFrame: no schema inferred from it)
from mlflow.models import ModelSignature
from mlflow.types import ColSpec, ParamSchema, ParamSpec, Schema

from tribunal.core.mt_item import JudgeItem
from tribunal.service.judging import JobRequest, configure, judge_factory, judge_items
from tribunal.eval.equiv.rules.llm import LLMJudgeRule
from tribunal.eval.mt.items import item_key
from tribunal.eval.mt.grounding import locate
from tribunal.optimizers.program_loader import load_program
from tribunal.optimizers.program_source import program_kind
from tribunal.programs.lm import LMSettings, build_lm
from tribunal.quiet import leaves_filters_as_found
from tribunal.signatures.mqm.item_fields import MT_ITEM_FIELDS

PROGRAM_ARTIFACT = "program"
MT_COLUMNS = MT_ITEM_FIELDS
EQUIV_COLUMNS = ("hypothesis_a", "hypothesis_b")
OUTPUTS = {"mt": ("score", "errors", "unscored_reason"), "equiv": ("verdict", "score", "unscored_reason")}
PARAM_DEFAULTS = {"lm": "", "api_base": "", "api_key_env": "", "concurrency": 4, "cache": True}
ENV_PARAMS = {"lm": "TRIBUNAL_LM", "api_base": "TRIBUNAL_API_BASE", "api_key_env": "TRIBUNAL_API_KEY_ENV"}


def judge_signature(kind: str) -> Any:
    """The model signature: the item columns in, the judgment columns out, the LM as params."""
    columns = MT_COLUMNS if kind == "mt" else EQUIV_COLUMNS
    types = {"score": "double", "errors": "string", "unscored_reason": "string", "verdict": "string"}
    params = [ParamSpec(name, {str: "string", int: "long", bool: "boolean"}[type(default)], default)
              for name, default in PARAM_DEFAULTS.items()]
    return ModelSignature(inputs=Schema([ColSpec("string", c) for c in columns]),
                          outputs=Schema([ColSpec(types[c], c, required=False) for c in OUTPUTS[kind]]),
                          params=ParamSchema(params))


def lm_settings(params: dict[str, Any] | None) -> Any:
    """The predict-time LM from ``params``, else the ``TRIBUNAL_*`` variables; a clear error without one."""
    given = {k: v for k, v in (params or {}).items() if v not in (None, "")}
    chosen = {k: given.get(k) or os.environ.get(var) or None for k, var in ENV_PARAMS.items()}
    if not chosen["lm"]:
        raise ValueError("no LM: pass params={'lm': MODEL} (and api_base, api_key_env) or set TRIBUNAL_LM")
    return LMSettings(model=chosen["lm"], api_base=chosen["api_base"], api_key_env=chosen["api_key_env"],
                      cache=bool(given.get("cache", PARAM_DEFAULTS["cache"])))


class _Rendered:
    """A hypothesis given as its rendered text (the equivalence judge compares ``render()``)."""

    def __init__(self, text: str):
        self.text, self.id = text, ""

    def render(self) -> str:
        return self.text


class TunedJudge(mlflow.pyfunc.PythonModel):
    """The pyfunc model of a tuned export (see the module docstring)."""

    def load_context(self, context: Any) -> None:
        self.path = context.artifacts[PROGRAM_ARTIFACT]
        # The seal, format, credential and structure checks, before any prediction.
        program, self.document = load_program(self.path)
        self.kind = program_kind(self.document["program"]["name"], program) or "mt"
        self._built: dict[tuple, Any] = {}
        self._lock = threading.Lock()

    @leaves_filters_as_found  # the libraries a first prediction loads add filters on import: not to the caller's
    def predict(self, context: Any, model_input: pd.DataFrame, params: dict[str, Any] | None = None) -> pd.DataFrame:
        lm = lm_settings(params)
        threads = int((params or {}).get("concurrency") or PARAM_DEFAULTS["concurrency"])
        frame = model_input if isinstance(model_input, pd.DataFrame) else pd.DataFrame(model_input)
        columns = MT_COLUMNS if self.kind == "mt" else EQUIV_COLUMNS
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise ValueError(f"the input needs the columns {', '.join(columns)} (missing: {', '.join(missing)})")
        rows = frame[list(columns)].astype(str).to_dict("records")
        judged = self._judge_mt(rows, lm, threads) if self.kind == "mt" else self._judge_pairs(rows, lm, threads)
        return pd.DataFrame(judged, columns=list(OUTPUTS[self.kind]))

    def _factory(self, lm: Any, threads: int) -> tuple[Any, Any]:
        """The config and judge factory of ``mt evaluate --program EXPORT`` with this LM (built once per LM),
        from the judging service."""
        key = (lm.model_dump_json(), threads)
        with self._lock:
            if key not in self._built:
                config = configure(JobRequest(given={"lp": "model-input", "lm": lm, "program_file": self.path,
                                                     "concurrency": threads}))
                self._built[key] = (config, judge_factory(config))
            return self._built[key]

    def _judge_mt(self, rows: list[dict[str, str]], lm: Any, threads: int) -> list[dict[str, Any]]:
        from tribunal.programs.mqm.demos import LANGUAGES  # heavy: pulls in dspy

        config, make_program = self._factory(lm, threads)
        groups: dict[tuple[str, str], dict[str, JudgeItem]] = {}
        keys = []
        for row in rows:
            languages = (LANGUAGES.get(row["source_lang"], row["source_lang"]),
                         LANGUAGES.get(row["target_lang"], row["target_lang"]))
            key = item_key(row["source"], row["translation"])
            groups.setdefault(languages, {})[key] = JudgeItem(key, row["source"], row["translation"])
            keys.append((languages, key))
        results: dict[tuple, Any] = {}
        for (source_lang, target_lang), items in groups.items():
            judged = judge_items(config, items.values(), {"source_lang": source_lang, "target_lang": target_lang},
                                 make_program, threads)
            results |= {((source_lang, target_lang), k): r for k, r in judged.items()}
        out = []
        for row, key in zip(rows, keys):
            result = results[key]
            scored = result.status == "scored"
            errors = locate(result.errors, row["translation"], row["source"]) if scored else []  # as errors.jsonl
            out.append({"score": result.score if scored else None,
                        "errors": json.dumps(errors, ensure_ascii=False, default=str),
                        "unscored_reason": None if scored else result.reason})
        return out

    def _judge_pairs(self, rows: list[dict[str, str]], lm: Any, threads: int) -> list[dict[str, Any]]:
        program, _ = load_program(self.path)
        rule = LLMJudgeRule(build_lm(lm), threads=threads, program=program, lm_name=lm.model)
        judgments = rule.judge_pairs([(_Rendered(r["hypothesis_a"]), _Rendered(r["hypothesis_b"])) for r in rows])
        return [{"verdict": None if j.same is None else ("same" if j.same else "different"), "score": j.score,
                 "unscored_reason": j.reason if j.same is None else None} for j in judgments]

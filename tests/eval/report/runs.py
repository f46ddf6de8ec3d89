"""Runs the page tests read: real ``mt evaluate`` runs over the loopback server (imported, not collected)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tests.support.mtme_folder import write_mtme
from tribunal.eval.mt.config import EvaluateConfig
from tribunal.eval.mt.job import run_evaluation
from tribunal.eval.tracking.mlflow_run import TrackingSettings
from tribunal.programs.lm import LMSettings

KEY_ENV = "TRIBUNAL_LOOPBACK_API_KEY"
PLANTED = '<script>alert("planted")</script>'
UNGROUNDED = "völlig erfunden"
SOURCES = ['He said "stop" & left.', "Prices rose <sharply>.", "She thanked everyone.", "The bridge 🌉 reopens soon."]
OUTPUTS = {
    "A": [f"Er sagte {PLANTED} & ging.", "Die Preise stiegen <b>stark</b>.", "Sie dankte allen.",
          "Die Brücke 🌉 öffnet bald wieder."],
    "B": ['Er sagte "halt" & ging weg.', "Preise stiegen scharf.", "GARBLE dankte allen.",
          "Die 🌉 Brücke öffnet sich bald."],
}
GOLD = {"A": [-5.0, -1.0, 0.0, -1.0], "B": [-1.0, -6.0, -2.0, -5.0]}


def _rating(text: str, word: str, severity: str) -> dict[str, Any]:
    start = text.index(word)
    return {"start": start, "end": start + len(word), "category": "Accuracy/Mistranslation", "severity": severity,
            "is_source_error": False}


def write_markup_data(root: Path) -> Path:
    """4 segments x 2 systems with markup, quotes, ``&`` and an emoji (offsets are code points), every cell rated."""
    marked = {("A", 0): [_rating(OUTPUTS["A"][0], PLANTED, "major")], ("A", 1): [_rating(OUTPUTS["A"][1], "stark", "minor")],
              ("A", 3): [_rating(OUTPUTS["A"][3], "öffnet", "minor")], ("B", 1): [_rating(OUTPUTS["B"][1], "scharf", "major")],
              ("B", 2): [_rating(OUTPUTS["B"][2], "GARBLE", "major")], ("B", 3): [_rating(OUTPUTS["B"][3], "Brücke", "major")]}
    lines = [f"{system}\t{json.dumps({'errors': marked.get((system, seg), [])})}\n"
             for system, texts in OUTPUTS.items() for seg in range(len(texts))]
    return write_mtme(root, SOURCES, OUTPUTS, {"refA": OUTPUTS["A"]}, GOLD, ["news\td1"] * len(SOURCES), "".join(lines))


def markup_judge(name: str, inputs: dict[str, Any]) -> Any:
    """GEMBA-MQM that marks the planted markup, a span not in the text, and cannot answer on GARBLE."""
    translation = str(inputs.get("translation", ""))
    if name != "GembaMQM":
        return synthetic_judge(name, inputs)
    if "GARBLE" in translation:
        return "no fields at all"
    word = max(translation.split(), key=len)
    errors = [{"span": word, "category": "accuracy", "subcategory": "mistranslation", "severity": "minor",
               "is_source_error": False}]
    if PLANTED in translation:
        errors.append({"span": PLANTED, "category": "accuracy", "subcategory": "addition", "severity": "critical",
                       "is_source_error": False})
    if "Preise" in translation:
        errors.append({"span": UNGROUNDED, "category": "fluency", "subcategory": "grammar", "severity": "major",
                       "is_source_error": False})
    return {"errors": errors}


def evaluate(data: Path, lp: str, out: Path, program: str, judge: Any, tracking: TrackingSettings | None = None,
             **fields: Any):
    """``run_evaluation`` over the loopback server answering with ``judge``; the :class:`EvaluationResult`."""
    os.environ.setdefault(KEY_ENV, "sk-loopback-page-tests")
    with loopback_server(judge) as (api_base, _):
        lm = LMSettings(model="openai/loopback-judge", api_base=api_base, api_key_env=KEY_ENV, num_retries=0,
                        timeout=5, cache=False, reasks=1)
        config = EvaluateConfig(**({"data": data, "lp": lp, "lm": lm, "demos": 0, "concurrency": 2, "out": out,
                                    "program": program} | fields))
        return run_evaluation(config, tracking or TrackingSettings(enabled=False))

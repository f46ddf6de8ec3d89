"""GEMBA-ESA (Kocmi & Federmann, 2024): error spans first, then a 0-100 score given those spans.

Two LM calls per item, always (the score step runs on a clean translation too, as in the paper):
the ``evaluator`` marks the error spans (minor / major, GEMBA's three fixed demos), the ``scorer``
gives a score on ESA's 0-100 scale seeing the source, the translation and the spans. The score is
the judge's output as it is (higher is better; the meta-evaluation needs no common scale).

Ablation ``ablate=("spans",)``: the paper's ESA without the span step, one direct 0-100 score
(:class:`~tribunal.signatures.mqm.esa_score.DirectScore`), one call and no spans.

A score outside 0-100 is an unusable answer: the item is unscored, never clipped into range.
"""

from __future__ import annotations

import math
from typing import Literal

import dspy
from pydantic import ConfigDict, Field

from tribunal.core.judge_settings import Ablations
from tribunal.core.mt_judgment import judged
from tribunal.programs.mqm.plans import Plan, ask
from tribunal.programs.mqm.planned import SegmentJudge
from tribunal.programs.mqm.roles import RoleLMs, UnusableAnswer
from tribunal.signatures.mqm.esa_score import ESA_MAX, ESA_MIN, DirectScore, ESAScore
from tribunal.signatures.mqm.esa_spans import ESASpans

EVALUATOR = "evaluator"
SCORER = "scorer"
ROLES: tuple[str, ...] = (EVALUATOR, SCORER)
"""The roles its calls are made as, declared once (its registry entry reads them from here)."""

# What the prediction's score is (the optimizer metric compares it with MQM labels on one scale).
SCALE = "esa"


class ESAConfig(Ablations):
    """The switches of a GEMBA-ESA program (part of the run's signature)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ablate: tuple[Literal["spans"], ...] = Field((), description="steps left out: spans (score directly)")


def checked_score(value: float) -> float:
    """``value`` as an ESA score, or :class:`UnusableAnswer` outside 0-100 (or not a number)."""
    score = float(value)
    if math.isnan(score) or not ESA_MIN <= score <= ESA_MAX:
        raise UnusableAnswer(f"ESA score {value!r} is outside {ESA_MIN:g}-{ESA_MAX:g}")
    return score


class GembaESAJudge(SegmentJudge):
    """GEMBA-ESA; ``forward`` returns ``errors`` (the spans), ``score`` (0-100) and a ``transcript``."""

    def __init__(self, config: ESAConfig | None = None, lms: RoleLMs | None = None):
        super().__init__()
        self.config = config = config or ESAConfig()
        self.lms = lms
        self.marks_spans = "spans" not in config.ablate
        if self.marks_spans:
            self.annotate = dspy.Predict(ESASpans)
        self.rate = dspy.Predict(ESAScore if self.marks_spans else DirectScore)

    def plan(self, source: str, translation: str, source_lang: str = "", target_lang: str = "") -> Plan:
        """The error spans (unless ablated), then the 0-100 score given them."""
        inputs = dict(source=source, translation=translation, source_lang=source_lang, target_lang=target_lang)
        transcript: list[dict] = []
        errors: list = []
        if self.marks_spans:
            errors = list((yield ask(self.lms, EVALUATOR, "spans", self.annotate, **inputs)).errors)
            transcript.append({"stage": "spans", "role": "evaluator", "errors": [e.model_dump() for e in errors]})
            out = yield ask(self.lms, SCORER, "score", self.rate, errors=errors, **inputs)
        else:
            out = yield ask(self.lms, SCORER, "score", self.rate, **inputs)
        score = checked_score(out.score)
        transcript.append({"stage": "score", "role": "scorer", "score": score})
        return judged(score, errors, transcript, scale=SCALE)

"""The GEMBA-MQM baseline: one coupled prompt with 3 fixed demos, scored by GEMBA's own scheme."""

from __future__ import annotations

import dspy

from tribunal.programs.mqm.plans import Plan, ask
from tribunal.programs.mqm.planned import SegmentJudge
from tribunal.programs.mqm.roles import RoleLMs
from tribunal.programs.mqm.scoring import gemba_mqm_score
from tribunal.signatures.mqm.gemba import GembaMQM


class GembaMQMJudge(SegmentJudge):
    def __init__(self, lms: RoleLMs | None = None):
        super().__init__()
        self.lms = lms
        self.annotate = dspy.Predict(GembaMQM)

    def plan(self, source: str, translation: str, source_lang: str = "", target_lang: str = "") -> Plan:
        """The one annotator call, then its errors scored (:meth:`score_of`)."""
        out = yield ask(self.lms, "gemba", "gemba", self.annotate, source=source, translation=translation,
                        source_lang=source_lang, target_lang=target_lang)
        errors = list(out.errors)
        transcript = [{"stage": "gemba", "role": "gemba", "errors": [e.model_dump() for e in errors]}]
        return dspy.Prediction(errors=errors, score=self.score_of(errors), transcript=transcript, debates={})

    @staticmethod
    def score_of(errors: list) -> float:
        """The item's score from its errors: GEMBA-MQM's scheme."""
        return gemba_mqm_score(errors)

"""The GEMBA-MQM baseline: one coupled prompt with 3 fixed demos, scored by GEMBA's own scheme."""

from __future__ import annotations

import dspy

from tribunal.core.mt_judgment import judged
from tribunal.programs.mqm.plans import Plan, ask
from tribunal.programs.mqm.planned import SegmentJudge
from tribunal.programs.mqm.roles import RoleLMs
from tribunal.programs.mqm.scoring import gemba_mqm_score
from tribunal.signatures.mqm.gemba import GembaMQM

GEMBA = "gemba"
ROLES: tuple[str, ...] = (GEMBA,)
"""The roles its calls are made as, declared once (its registry entry reads them from here)."""


class GembaMQMJudge(SegmentJudge):
    def __init__(self, lms: RoleLMs | None = None):
        super().__init__()
        self.lms = lms
        self.annotate = dspy.Predict(GembaMQM)

    def plan(self, source: str, translation: str, source_lang: str = "", target_lang: str = "") -> Plan:
        """The one annotator call, then its errors scored (:meth:`score_of`)."""
        out = yield ask(self.lms, GEMBA, "gemba", self.annotate, source=source, translation=translation,
                        source_lang=source_lang, target_lang=target_lang)
        errors = list(out.errors)
        transcript = [{"stage": "gemba", "role": "gemba", "errors": [e.model_dump() for e in errors]}]
        return judged(self.score_of(errors), errors, transcript)

    @staticmethod
    def score_of(errors: list) -> float:
        """The item's score from its errors: GEMBA-MQM's scheme."""
        return gemba_mqm_score(errors)

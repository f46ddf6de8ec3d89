"""The error-free judge: one call answering WMT26's binary question directly (``signatures/mqm/error_free.py``).

Its score is on ESA's 0-100 scale so that every score-file reader and the error-free conversion
(``score >= 85``) take it as they are: 100 error-free, 0 not. It marks no spans.
"""

from __future__ import annotations

import dspy

from tribunal.core.mt_judgment import judged
from tribunal.programs.mqm.plans import Plan, ask
from tribunal.programs.mqm.planned import SegmentJudge
from tribunal.programs.mqm.roles import RoleLMs
from tribunal.signatures.mqm.error_free import ErrorFree

ERROR_FREE = "error_free"
ROLES: tuple[str, ...] = (ERROR_FREE,)
"""The roles its calls are made as, declared once (its registry entry reads them from here)."""

ERROR_FREE_SCORE, HAS_ERRORS_SCORE = 100.0, 0.0


class ErrorFreeJudge(SegmentJudge):
    def __init__(self, lms: RoleLMs | None = None):
        super().__init__()
        self.lms = lms
        self.decide = dspy.Predict(ErrorFree)

    def plan(self, source: str, translation: str, source_lang: str = "", target_lang: str = "") -> Plan:
        """The one yes/no call (the reference and context inputs too, where given; WMT26 allows no reference)."""
        out = yield ask(self.lms, ERROR_FREE, "error_free", self.decide, source=source, translation=translation,
                        source_lang=source_lang, target_lang=target_lang)
        verdict = bool(out.error_free)
        transcript = [{"stage": "error_free", "role": "error_free", "error_free": verdict}]
        return judged(ERROR_FREE_SCORE if verdict else HAS_ERRORS_SCORE, [], transcript, scale="esa")

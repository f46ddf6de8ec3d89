"""The EAPrompt baseline: error analysis, then counts; score ``-(5 * major + minor)``. No spans."""

from __future__ import annotations

import dspy

from tribunal.core.mt_judgment import judged
from tribunal.programs.mqm.plans import Plan, ask
from tribunal.programs.mqm.planned import SegmentJudge
from tribunal.programs.mqm.roles import RoleLMs, UnusableAnswer
from tribunal.programs.mqm.scoring import count_score
from tribunal.signatures.mqm.eaprompt import ErrorAnalysis

EAPROMPT = "eaprompt"
ROLES: tuple[str, ...] = (EAPROMPT,)
"""The roles its calls are made as, declared once (its registry entry reads them from here)."""


class EAPromptJudge(SegmentJudge):
    def __init__(self, lms: RoleLMs | None = None):
        super().__init__()
        self.lms = lms
        self.analyse = dspy.Predict(ErrorAnalysis)

    def plan(self, source: str, translation: str, source_lang: str = "", target_lang: str = "") -> Plan:
        """The error analysis, then its counts scored."""
        out = yield ask(self.lms, EAPROMPT, "eaprompt", self.analyse, source=source, translation=translation,
                        source_lang=source_lang, target_lang=target_lang)
        major, minor = int(out.major_errors), int(out.minor_errors)
        if major < 0 or minor < 0:
            raise UnusableAnswer(f"negative error count (major={major}, minor={minor})")
        transcript = [{"stage": "eaprompt", "role": "eaprompt", "analysis": out.analysis,
                       "major": major, "minor": minor}]
        return judged(count_score(major, minor), [], transcript)

"""The published M-MAD debaters (``debaters="minor-leaning"``): downgraded opening, simultaneous re-examination.

Round 0 costs no call. The defender (A1) opens with the stage-1 annotations; the opposer (A2) opens
with the same annotations with every major turned to minor, or, when stage 1 declared
non-translation, with the published rebuttal of it. In each round 1..R both agents speak at once:
each reads the exchange up to the previous round from its own side and re-examines its annotations
with the dimension's expert instruction and the minor-leaning guidance
(``signatures/mqm/reexamination.py``). Under a runner's scheduler the two calls of a round run
concurrently; the transcript keeps defender-then-opposer order either way.
"""

from __future__ import annotations

import dspy

from tribunal.programs.mqm.debate import DEBATERS, STAGE, DebateCase
from tribunal.programs.mqm.plans import Plan, Together, ask
from tribunal.programs.mqm.roles import RoleLMs
from tribunal.signatures.mqm.errors import DIMENSIONS, NON_TRANSLATION, DimensionError, tag
from tribunal.signatures.mqm.reexamination import REEXAMINATIONS

REBUTTAL = ("I do not think it meets the criteria of being too badly garbled or entirely unrelated to the source, "
            "so it cannot be counted as a non-translation error.")


def downgraded(errors: list[DimensionError]) -> list[DimensionError]:
    """``errors`` with every major turned to minor (the opposer's opening)."""
    return [e.model_copy(update={"severity": "minor"}) for e in errors]


def has_non_translation(errors: list[DimensionError]) -> bool:
    return any(e.subcategory == NON_TRANSLATION for e in errors)


def worth_debating(errors: list[DimensionError]) -> bool:
    """The published selection: a dimension is debated only if it has a major error or a non-translation."""
    return any(e.severity == "major" for e in errors) or has_non_translation(errors)


class MinorLeaningDebaters(dspy.Module):
    """Both sides of a published debate: one re-examination predictor per dimension, shared by A1 and A2."""

    def __init__(self, lms: RoleLMs | None = None):
        super().__init__()
        self.lms = lms
        for dimension in DIMENSIONS:
            setattr(self, dimension, dspy.Predict(REEXAMINATIONS[dimension]))

    def open(self, case: DebateCase) -> None:
        """Round 0: both openings, without a call."""
        case.add_turn("defender", 0, "my annotations", case.assessment, source="stage1")
        if has_non_translation(case.assessment):
            case.add_turn("opposer", 0, REBUTTAL, source="rebuttal")
        else:
            case.add_turn("opposer", 0, "my annotations", downgraded(case.assessment), source="downgraded")

    def speaking(self, case: DebateCase, round_: int) -> Plan:
        """One round as a plan (:mod:`tribunal.programs.mqm.plans`), both sides' calls together: it returns
        ``(defender's annotations, opposer's annotations)``, each side blind to the other's turn."""
        predictor = getattr(self, case.dimension)
        views = {side: case.transcript(viewer=side) for side in DEBATERS}
        outs = yield Together([ask(self.lms, side, STAGE, predictor, debate=views[side], **case.segment())
                               for side in DEBATERS])
        positions = []
        for side, out in zip(DEBATERS, outs):
            errors = tag(out.errors, case.dimension)
            case.add_turn(side, round_, out.analysis, errors)
            positions.append(errors)
        return positions[0], positions[1]

"""The review strategies: a reviewer questions the debate between rounds and decides.

``interactive-review``: defender and opposer speak each round, then the reviewer either decides or
asks questions the next round answers. ``consultancy-review``: a single consultant (defending the
stage-1 verdict) talks directly with the reviewer. The reviewer must decide in the last round.
"""

from __future__ import annotations

import dspy

from tribunal.programs.mqm.debate import STAGE, DebateCase, DebateOutcome, register_strategy
from tribunal.programs.mqm.roles import RoleLMs, invoke
from tribunal.signatures.mqm.debater import DebateTurn
from tribunal.signatures.mqm.reviewer import ReviewTurn


class _ReviewedDebate(dspy.Module):
    sides: tuple[str, ...] = ()

    def __init__(self, rounds: int = 3, lms: RoleLMs | None = None, **_: object):
        super().__init__()
        self.rounds, self.lms = rounds, lms
        self.reviewer = dspy.Predict(ReviewTurn)

    def predictor(self, side: str):
        return getattr(self, side)

    def forward(self, case: DebateCase) -> DebateOutcome:
        for round_ in range(1, self.rounds + 1):
            for side in self.sides:
                if side != "opposer" and round_ == 1 and case.opening is not None:
                    case.add_turn(side, 1, case.opening, case.assessment, source="stage1")
                    continue
                stance = "oppose" if side == "opposer" else "defend"
                role = "opposer" if side == "opposer" else "defender"
                out = invoke(self.lms, role, STAGE, self.predictor(side), stance=stance, **case.inputs())
                case.add_turn(side, round_, out.argument, out.position, agrees=bool(out.agrees))
            final = round_ == self.rounds
            review = invoke(self.lms, "reviewer", STAGE, self.reviewer, final_round=final, **case.inputs())
            case.add_turn("reviewer", round_, review.questions or "decided", review.errors,
                          decided=bool(review.decided))
            if review.decided or final:
                return DebateOutcome(review.errors, round_, None, "reviewer")
        raise AssertionError("unreachable: the reviewer decides in the final round")


@register_strategy("interactive-review")
class InteractiveReview(_ReviewedDebate):
    sides = ("defender", "opposer")

    def __init__(self, rounds: int = 3, lms: RoleLMs | None = None, **kwargs: object):
        super().__init__(rounds, lms)
        self.defender = dspy.Predict(DebateTurn)
        self.opposer = dspy.Predict(DebateTurn)


@register_strategy("consultancy-review")
class ConsultancyReview(_ReviewedDebate):
    sides = ("consultant",)

    def __init__(self, rounds: int = 3, lms: RoleLMs | None = None, **kwargs: object):
        super().__init__(rounds, lms)
        self.consultant = dspy.Predict(DebateTurn)

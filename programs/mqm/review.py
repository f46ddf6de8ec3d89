"""The review strategies: a reviewer questions the debate between rounds and decides.

``interactive-review``: defender and opposer speak each round, then the reviewer either decides or
asks questions the next round answers. ``consultancy-review``: a single consultant (defending the
stage-1 verdict) talks directly with the reviewer. The reviewer must decide in the last round.
With ``debaters="minor-leaning"`` the interactive review's two sides are the published debaters
(openings without a call, then both re-examine at once each round, reading the reviewer's questions);
the consultancy has a single debater, so it runs free debaters only.
"""

from __future__ import annotations

import dspy

from tribunal.programs.mqm.debate import STAGE, DebateCase, DebateOutcome, register_strategy
from tribunal.programs.mqm.minor_leaning import MinorLeaningDebaters
from tribunal.programs.mqm.mmad_roles import DEFENDER, OPPOSER, REVIEWER
from tribunal.programs.mqm.plans import Plan, ask
from tribunal.programs.mqm.planned import Planned
from tribunal.programs.mqm.roles import RoleLMs
from tribunal.signatures.mqm.debater import DebateTurn
from tribunal.signatures.mqm.reviewer import ReviewTurn


class _ReviewedDebate(Planned):
    sides: tuple[str, ...] = ()

    def __init__(self, rounds: int = 3, lms: RoleLMs | None = None, **_: object):
        super().__init__()
        self.rounds, self.lms = rounds, lms
        self.reviewer = dspy.Predict(ReviewTurn)

    def predictor(self, side: str):
        return getattr(self, side)

    def speaking(self, case: DebateCase, round_: int) -> Plan:
        """Every side's turn of one round (a plan)."""
        if hasattr(self, "debaters"):
            if round_ == 1:
                self.debaters.open(case)
            yield from self.debaters.speaking(case, round_)
            return
        for side in self.sides:
            if side != OPPOSER and round_ == 1 and case.opening is not None:
                case.add_turn(side, 1, case.opening, case.assessment, source="stage1")
                continue
            stance = "oppose" if side == OPPOSER else "defend"
            role = OPPOSER if side == OPPOSER else DEFENDER
            out = yield ask(self.lms, role, STAGE, self.predictor(side), stance=stance, **case.inputs())
            case.add_turn(side, round_, out.argument, out.position, agrees=bool(out.agrees))

    def plan(self, case: DebateCase) -> Plan:
        """Rounds until the reviewer decides (a plan returning the :class:`DebateOutcome`)."""
        for round_ in range(1, self.rounds + 1):
            yield from self.speaking(case, round_)
            final = round_ == self.rounds
            review = yield ask(self.lms, REVIEWER, STAGE, self.reviewer, final_round=final, **case.inputs())
            case.add_turn("reviewer", round_, review.questions or "decided", review.errors,
                          decided=bool(review.decided))
            if review.decided or final:
                return DebateOutcome(review.errors, round_, None, "reviewer")
        raise AssertionError("unreachable: the reviewer decides in the final round")


@register_strategy("interactive-review")
class InteractiveReview(_ReviewedDebate):
    sides = ("defender", "opposer")

    def __init__(self, rounds: int = 3, lms: RoleLMs | None = None, debaters: str = "free", **kwargs: object):
        super().__init__(rounds, lms)
        if debaters == "minor-leaning":
            self.debaters = MinorLeaningDebaters(lms)
        else:
            self.defender = dspy.Predict(DebateTurn)
            self.opposer = dspy.Predict(DebateTurn)


@register_strategy("consultancy-review")
class ConsultancyReview(_ReviewedDebate):
    sides = ("consultant",)

    def __init__(self, rounds: int = 3, lms: RoleLMs | None = None, debaters: str = "free", **kwargs: object):
        if debaters != "free":
            raise ValueError("consultancy-review has a single debater: it runs free debaters only (debaters=free)")
        super().__init__(rounds, lms)
        self.consultant = dspy.Predict(DebateTurn)

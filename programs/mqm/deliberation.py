"""The ``deliberation`` strategy: a fixed number of rounds, then a judge agent decides.

With ``debaters="minor-leaning"`` the rounds are the published ones (openings without a call, then
both sides re-examine at once each round); with ``free`` debaters A1 speaks, then A2.
"""

from __future__ import annotations

import dspy

from tribunal.programs.mqm.debate import STAGE, DebateCase, DebateOutcome, register_strategy
from tribunal.programs.mqm.minor_leaning import MinorLeaningDebaters
from tribunal.programs.mqm.mmad_roles import DEBATE_JUDGE, DEFENDER, OPPOSER
from tribunal.programs.mqm.plans import Plan, ask
from tribunal.programs.mqm.planned import Planned
from tribunal.programs.mqm.roles import RoleLMs
from tribunal.signatures.mqm.debate_verdict import DebateVerdict
from tribunal.signatures.mqm.debater import DebateTurn


@register_strategy("deliberation")
class Deliberation(Planned):
    def __init__(self, rounds: int = 3, lms: RoleLMs | None = None, debaters: str = "free", **_: object):
        super().__init__()
        self.rounds, self.lms = rounds, lms
        if debaters == "minor-leaning":
            self.debaters = MinorLeaningDebaters(lms)
        else:
            self.defender = dspy.Predict(DebateTurn)
            self.opposer = dspy.Predict(DebateTurn)
        self.judge = dspy.Predict(DebateVerdict)

    def free_rounds(self, case: DebateCase) -> Plan:
        """The free debaters' rounds, A1 then A2 each round (a plan)."""
        for round_ in range(1, self.rounds + 1):
            for side, predictor, stance in ((DEFENDER, self.defender, "defend"), (OPPOSER, self.opposer, "oppose")):
                if side == DEFENDER and round_ == 1 and case.opening is not None:
                    case.add_turn("defender", 1, case.opening, case.assessment, source="stage1")
                    continue
                out = yield ask(self.lms, side, STAGE, predictor, stance=stance, **case.inputs())
                case.add_turn(side, round_, out.argument, out.position, agrees=bool(out.agrees))

    def plan(self, case: DebateCase) -> Plan:
        """The rounds, then the judge agent's verdict (a plan returning the :class:`DebateOutcome`)."""
        if hasattr(self, "debaters"):
            self.debaters.open(case)
            for round_ in range(1, self.rounds + 1):
                yield from self.debaters.speaking(case, round_)
        else:
            yield from self.free_rounds(case)
        verdict = yield ask(self.lms, DEBATE_JUDGE, STAGE, self.judge, **case.inputs())
        case.add_turn("debate_judge", self.rounds, "verdict", verdict.errors)
        return DebateOutcome(verdict.errors, self.rounds, None, "debate judge")

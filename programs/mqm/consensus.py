"""The ``consensus`` strategy: defender and opposer alternate until they agree, at most R rounds.

Each round the defender (A1) speaks, then the opposer (A2). Consensus is read from the debaters'
typed ``agrees`` (no extra call); ``separate_check=True`` restores the original M-MAD's consensus
call after every round. Without consensus the defender's (stage-1) side stands.
"""

from __future__ import annotations

import dspy

from tribunal.programs.mqm.debate import STAGE, DebateCase, DebateOutcome, register_strategy
from tribunal.programs.mqm.roles import RoleLMs, invoke
from tribunal.signatures.mqm.consensus import ConsensusCheck
from tribunal.signatures.mqm.debater import DebateTurn


@register_strategy("consensus")
class ConsensusDebate(dspy.Module):
    def __init__(self, rounds: int = 3, lms: RoleLMs | None = None, separate_check: bool = False):
        super().__init__()
        self.rounds, self.lms, self.separate_check = rounds, lms, separate_check
        self.defender = dspy.Predict(DebateTurn)
        self.opposer = dspy.Predict(DebateTurn)
        self.consensus = dspy.Predict(ConsensusCheck)

    def turn(self, case: DebateCase, side: str, round_: int):
        predictor, stance = (self.defender, "defend") if side == "defender" else (self.opposer, "oppose")
        out = invoke(self.lms, side, STAGE, predictor, stance=stance, **case.inputs())
        case.add_turn(side, round_, out.argument, out.position, agrees=bool(out.agrees))
        return out

    def forward(self, case: DebateCase) -> DebateOutcome:
        defended, opposed = case.assessment, None
        for round_ in range(1, self.rounds + 1):
            if round_ == 1 and case.opening is not None:
                case.add_turn("defender", 1, case.opening, case.assessment, source="stage1")
            else:
                a1 = self.turn(case, "defender", round_)
                defended = a1.position
                if a1.agrees and opposed is not None:
                    return DebateOutcome(opposed, round_, True, "defender conceded")
            a2 = self.turn(case, "opposer", round_)
            opposed = a2.position
            if a2.agrees:
                return DebateOutcome(defended, round_, True, "opposer conceded")
            if self.separate_check:
                check = invoke(self.lms, "consensus", STAGE, self.consensus,
                               dimension=case.dimension, debate=case.transcript())
                case.add_turn("consensus", round_, f"consensus={bool(check.consensus)}", check.agreed)
                if check.consensus:
                    return DebateOutcome(check.agreed, round_, True, "consensus check")
        return DebateOutcome(defended, self.rounds, False, "no consensus: stage-1 side stands")

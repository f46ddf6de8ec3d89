"""The ``consensus`` strategy: the two debaters go on until they agree, at most R rounds.

Two kinds of debaters (``MMADConfig.debaters``):
- ``minor-leaning`` (the published protocol, :mod:`tribunal.programs.mqm.minor_leaning`): round 0 is
  the two openings (no call); each round both re-examine at once, then a separate yes/no consensus
  check compares their annotations. On consensus, or after R rounds without, the defender's latest
  annotations stand (as in the published code).
- ``free``: each round the defender (A1) speaks, then the opposer (A2), arguing for and against the
  stage-1 verdict. Consensus is read from their typed ``agrees`` (no extra call);
  ``separate_check=True`` adds the consensus call after every round instead. Without consensus the
  defender's (stage-1) side stands.
"""

from __future__ import annotations

import dspy

from tribunal.programs.mqm.debate import STAGE, DebateCase, DebateOutcome, register_strategy
from tribunal.programs.mqm.minor_leaning import MinorLeaningDebaters
from tribunal.programs.mqm.mmad_roles import CONSENSUS, DEFENDER
from tribunal.programs.mqm.plans import Plan, ask
from tribunal.programs.mqm.planned import Planned
from tribunal.programs.mqm.roles import RoleLMs
from tribunal.core.scheduling import calls_ahead
from tribunal.signatures.mqm.consensus import ConsensusCheck
from tribunal.signatures.mqm.debater import DebateTurn


@register_strategy("consensus")
class ConsensusDebate(Planned):
    def __init__(self, rounds: int = 3, lms: RoleLMs | None = None, separate_check: bool = False,
                 debaters: str = "free"):
        super().__init__()
        self.rounds, self.lms, self.separate_check = rounds, lms, separate_check
        if debaters == "minor-leaning":
            self.debaters = MinorLeaningDebaters(lms)
        else:
            self.defender = dspy.Predict(DebateTurn)
            self.opposer = dspy.Predict(DebateTurn)
        self.consensus = dspy.Predict(ConsensusCheck)

    def turn(self, case: DebateCase, side: str, round_: int) -> Plan:
        """One debater's turn (a plan, :mod:`tribunal.programs.mqm.plans`)."""
        predictor, stance = (self.defender, "defend") if side == DEFENDER else (self.opposer, "oppose")
        out = yield ask(self.lms, side, STAGE, predictor, stance=stance, **case.inputs())
        case.add_turn(side, round_, out.argument, out.position, agrees=bool(out.agrees))
        return out

    def agreed(self, case: DebateCase, round_: int, first: list, second: list) -> Plan:
        """The separate consensus call on the two sides' latest annotations (a plan)."""
        check = yield ask(self.lms, CONSENSUS, STAGE, self.consensus, first_annotations=first,
                          second_annotations=second)
        case.add_turn("consensus", round_, f"consensus={bool(check.consensus)}")
        return bool(check.consensus)

    def plan(self, case: DebateCase) -> Plan:
        """The debate as a plan (its :class:`DebateOutcome`): the minor-leaning protocol, or free-stance turns."""
        if hasattr(self, "debaters"):
            return (yield from self.minor_leaning(case))
        defended, opposed = case.assessment, None
        check = int(self.separate_check)
        for round_ in range(1, self.rounds + 1):
            left = (self.rounds - round_) * (2 + check) + 1  # the later rounds' calls at most, and the judge
            if round_ == 1 and case.opening is not None:
                case.add_turn("defender", 1, case.opening, case.assessment, source="stage1")
            else:
                with calls_ahead(left + 1 + check):
                    a1 = yield from self.turn(case, "defender", round_)
                defended = a1.position
                if a1.agrees and opposed is not None:
                    return DebateOutcome(opposed, round_, True, "defender conceded")
            with calls_ahead(left + check):
                a2 = yield from self.turn(case, "opposer", round_)
            opposed = a2.position
            if a2.agrees:
                return DebateOutcome(defended, round_, True, "opposer conceded")
            with calls_ahead(left):
                if self.separate_check and (yield from self.agreed(case, round_, defended, opposed)):
                    return DebateOutcome(defended, round_, True, "consensus check")
        return DebateOutcome(defended, self.rounds, False, "no consensus: stage-1 side stands")

    def minor_leaning(self, case: DebateCase) -> Plan:
        self.debaters.open(case)
        defended = case.assessment
        for round_ in range(1, self.rounds + 1):
            left = 2 * (self.rounds - round_) + 1  # the later rounds' calls at most (both sides at once, the check), the judge
            with calls_ahead(left + 1):
                defended, opposed = yield from self.debaters.speaking(case, round_)
            with calls_ahead(left):
                if (yield from self.agreed(case, round_, defended, opposed)):
                    return DebateOutcome(defended, round_, True, "consensus check")
        return DebateOutcome(defended, self.rounds, False, "no consensus: defender's last annotations stand")

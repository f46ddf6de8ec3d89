"""The LLM equivalence judge: majority of three judgments, one with the pair reversed.

Call 1 judges (A, B), call 2 judges (B, A). If they agree, the majority is already decided
and the third vote is saved. Otherwise the third vote judges (A, B) again: above temperature 0 a
fresh call (a distinct rollout, so it is not a cache replay of call 1); at temperature 0 the same
request would get the same answer, so no call is made and call 1's answer counts twice (the vote is
marked ``counted_twice``): the (A, B) order decides a tie, for two calls instead of three. Every
vote goes through the re-ask rule (:func:`tribunal.programs.answers.ask`); a vote whose answer
stays unusable is *unscored*; without two agreeing scored votes the pair is unscored.

The pair may be framed by its instance (research question) and observed finding: per call
(``forward(..., instance_context=, observed_finding=)``) or for every call of a copy
(:meth:`EquivalenceJudge.framed`). Without them the signature's neutral defaults apply.
"""

from __future__ import annotations

from typing import Any

import dspy

from tribunal.programs.answers import ask, asks_of, describe, tolerant_answers
from tribunal.core.judgment import Judgment, Vote
from tribunal.programs.answers.failures import ANSWER_FAILURES, is_answer_failure
from tribunal.programs.mqm.roles import calls_as
from tribunal.signatures.equiv_judge import RUBRICS

MAX_VOTES = 3
STAGE, ROLE = "equiv", "equivalence_judge"  # the tag of its calls (usage per role, --estimate's by_role)
# (presentation order, swap the inputs?) for each of the three calls
PLAN = (("ab", False), ("ba", True), ("ab", False))


def _context(instance_context: str | None, observed_finding: str | None) -> dict[str, str]:
    """The framing inputs that were given (the signature's defaults stand in for the others)."""
    return {k: v for k, v in (("instance_context", instance_context), ("observed_finding", observed_finding)) if v}


def majority(votes: list[Vote], needed: int = 2) -> bool | None:
    """The verdict ``needed`` scored votes agree on, else ``None``."""
    scored = [v.same for v in votes if v.same is not None]
    for verdict in (True, False):
        if scored.count(verdict) >= needed:
            return verdict
    return None


class EquivalenceJudge(dspy.Module):
    """Majority-of-three LLM judge under one rubric (``full``, ``stepwise``, ``component`` or ``none``)."""

    def __init__(self, rubric: str = "full"):
        super().__init__()
        if rubric not in RUBRICS:
            raise ValueError(f"unknown rubric {rubric!r} (have {', '.join(RUBRICS)})")
        self.rubric = rubric
        self.context: dict[str, str] = {}  # framing shown with every pair (see ``framed``)
        self.judge = dspy.Predict(RUBRICS[rubric])

    def framed(self, instance_context: str | None, observed_finding: str | None) -> "EquivalenceJudge":
        """A copy (tuned demos and instructions included) that frames every pair with this context."""
        copy = self.deepcopy()
        copy.context = _context(instance_context, observed_finding)
        return copy

    def forward(self, hypothesis_a: str, hypothesis_b: str, repeat: int = 0, instance_context: str | None = None,
                observed_finding: str | None = None) -> dspy.Prediction:
        context = {**self.context, **_context(instance_context, observed_finding)}
        votes: list[Vote] = []
        calls = 0
        for call, (order, swap) in enumerate(PLAN):
            if call == 2 and _deterministic(self.judge.lm or dspy.settings.lm):
                votes.append(votes[0].model_copy(update={"detail": {**votes[0].detail, "counted_twice": True}}))
                break
            first, second = (hypothesis_b, hypothesis_a) if swap else (hypothesis_a, hypothesis_b)
            # A repeated presentation needs its own rollout id, or the cache would replay it.
            rollout = repeat * MAX_VOTES + call if (repeat or call == 2) else None
            vote, asks = self._vote(order, first, second, rollout, context)
            votes.append(vote)
            calls += asks
            if majority(votes) is not None:
                break
        verdict = majority(votes)
        called = sum(not v.detail.get("counted_twice") for v in votes)
        judgment = Judgment(
            same=verdict,
            score=sum(v.same is True for v in votes) / max(1, sum(v.same is not None for v in votes)),
            votes=tuple(votes),
            calls=calls,
            calls_saved=MAX_VOTES - called,
            reason=None if verdict is not None else "no two scored votes agree",
        )
        return dspy.Prediction(judgment=judgment)

    def _vote(self, order: str, first: str, second: str, rollout: int | None,
              context: dict | None = None) -> tuple[Vote, int]:
        """One vote and the LM calls it took (re-asks included)."""
        config: dict[str, Any] = {"rollout_id": rollout} if rollout is not None else {}
        try:
            with tolerant_answers(), calls_as(STAGE, ROLE):
                prediction = ask(self.judge, role="equivalence judge", config=config, **(context or {}),
                                 hypothesis_a=first, hypothesis_b=second)
        except ANSWER_FAILURES as err:  # unusable after the re-asks, or failed: this vote is unscored, not a verdict
            if not is_answer_failure(err):  # tribunal's own (the local server is gone): the run stops
                raise
            return Vote(order=order, same=None, error=describe(err)[:300]), getattr(err, "asks", 1)
        detail = {k: v for k, v in prediction.items() if k != "verdict"}
        return Vote(order=order, same=prediction.verdict == "same", detail=detail), asks_of(prediction)


def _deterministic(lm: Any) -> bool:
    """Whether ``lm`` samples at temperature 0 (a repeated request would get the same answer)."""
    return (getattr(lm, "kwargs", None) or {}).get("temperature") == 0

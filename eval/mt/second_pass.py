"""The second pass: an item a transient failure left unscored is judged once more at the end of the run.

Each of an item's calls already has its re-asks (:mod:`tribunal.programs.answers.reask`) and DSPy's
transport retries; an item is still lost when one call draws an unusable answer on every ask (answer
and re-asks: about ``p ** (reasks + 1)`` per call for a share ``p`` of unusable answers, 0.1% at
``p`` = 0.1, so about one item in a 60-item M-MAD run at 20% mixed faults) or exhausts its retries
in a burst of rate limits. Such a failure says nothing about the item: a fresh ask, later, usually
succeeds. So once every other item has landed, the items whose failure is *transient*
(:attr:`~tribunal.eval.mt.failures.Failure.transient`: an unusable answer after its re-asks, or a
transport failure after its retries) are judged once more, one pass, with the same re-ask budget.
Their usable calls come back from the response cache (unusable answers are never cached), so the
pass pays only for the calls that failed (with ``--no-cache`` it pays the item's calls again).
Failures a fresh ask would repeat (authentication, billing, a request too long for the model) are
not passed again, and ``--reasks 0`` (no second chances at all) turns the pass off.

The pass is a net for bad luck, not a loop over a broken judge: when more items failed transiently
than :func:`worth_a_pass` allows (more than :data:`BAD_LUCK_ITEMS` and more than
:data:`BAD_LUCK_SHARE` of the items the run judged, or more than half of them), the failures are the judge's or the provider's
(a tuned prompt the model cannot follow, a rate limit far below the run's pace), a second pass would
only pay for them twice, and it is skipped (``summary["second_pass"]["skipped"]`` says why).

The pass's result replaces the first in the journal (a later line for the same key wins) and carries
the first attempt's usage, so the run's calls, tokens and spend count both attempts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from tribunal.core.item_result import ItemResult
from tribunal.core.usage_counts import UsageCounts
from tribunal.core.mt_item import JudgeItem
from tribunal.eval.mt.journal import Journal
from tribunal.runner.meter import add_summaries

BAD_LUCK_ITEMS = 2
"""A run may always pass this many failed items again."""
BAD_LUCK_SHARE = 0.05
"""Beyond :data:`BAD_LUCK_ITEMS`, the most failed items passed again, as a share of the items judged
(20% mixed faults lose about 1-2% of M-MAD items to bad luck; a broken judge loses far more)."""


@dataclass
class SecondPass:
    """What the pass judged and what it recovered (``summary["second_pass"]``)."""

    items: int = 0
    recovered: int = 0
    keys: list[str] = field(default_factory=list)
    skipped: str | None = None

    def summary(self) -> dict[str, Any]:
        return {"items": self.items, "recovered": self.recovered, "skipped": self.skipped}


class _CarryUsage:
    """The journal, seen by the pass: each result carries its item's first attempt's usage and seconds."""

    def __init__(self, journal: Journal, first: dict[str, ItemResult]):
        self._journal, self._first = journal, first

    def append(self, result: ItemResult) -> None:
        earlier = self._first.get(result.key)
        if earlier is not None:
            result = result.model_copy(update={"usage": UsageCounts.model_validate(add_summaries([earlier.usage,
                                                                                               result.usage])),
                                               "seconds": earlier.seconds + result.seconds})
        self._journal.append(result)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._journal, name)


def needs_second_pass(result: ItemResult | None) -> bool:
    """Whether ``result`` is an unscored item whose failure a fresh ask may well not repeat."""
    return result is not None and result.status == "unscored" and result.transient


def worth_a_pass(failed: int, judged: int) -> bool:
    """Whether ``failed`` of ``judged`` items look like bad luck (see the module docstring)."""
    return failed <= max(BAD_LUCK_ITEMS, BAD_LUCK_SHARE * judged) and 2 * failed <= judged


def run_second_pass(judged: list[JudgeItem], journal: Journal,
                    judge: Callable[[list[JudgeItem], Any], None]) -> SecondPass:
    """Judge once more the items of ``judged`` that :func:`needs_second_pass`; ``judge(items, journal)``
    runs the same judging loop as the first pass, journaling into the journal it is given."""
    again = [item for item in judged if needs_second_pass(journal.results.get(item.key))]
    if not worth_a_pass(len(again), len(judged)):
        return SecondPass(skipped=f"{len(again)} of {len(judged)} items failed: more than bad luck")
    outcome = SecondPass(items=len(again), keys=[item.key for item in again])
    if not again:
        return outcome
    first = {item.key: journal.results[item.key] for item in again}
    judge(again, _CarryUsage(journal, first))
    outcome.recovered = sum(journal.results[k].status == "scored" for k in outcome.keys if k in journal.results)
    return outcome

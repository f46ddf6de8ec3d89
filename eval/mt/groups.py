"""Judging a source segment's candidates together: items grouped by source, one program call per group.

A judge that declares ``together`` (:class:`tribunal.core.judges.Judge`) is run once per source segment
on all of its pending translations (:func:`judging_units`); :func:`judge_group` turns its per-candidate
judgments into one :class:`~tribunal.core.item_result.ItemResult` per item, so the journal, the score
files, the report and meta-evaluation see them as any other judge's. A group the judge could not answer
leaves every item of it unscored with the reason (never a zero). The group's LM usage is booked on its
first item (the others carry none), so the run's call and token totals stay exact. :func:`ajudge_group` is
its twin on the async runner (``--judging async``): the same results, built by the same :func:`group_judging`.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator

from tribunal.core.item_result import ItemResult
from tribunal.core.judgment_step import Step
from tribunal.core.mt_item import JudgeItem
from tribunal.core.mt_judgment import judgments_of
from tribunal.eval.mt.failures import classify_failure, raw_answer
from tribunal.eval.tracking.call_log import CallLog, recording
from tribunal.programs.answers.unusable import one_line
from tribunal.runner.meter import UsageMeter, metering
from tribunal.secrets import redact_text


def judging_units(items: Iterable[JudgeItem], together: bool = False) -> Iterator[list[JudgeItem]]:
    """The units a runner judges: one item each, taken as it is needed (a worker process's items come
    from a queue), or (``together``) the items of each source, first-seen order."""
    if not together:
        return ([item] for item in items)
    groups: dict[str, list[JudgeItem]] = {}
    for item in items:
        groups.setdefault(item.source, []).append(item)
    return iter(groups.values())


def group_key(items: list[JudgeItem]) -> str:
    """The group's identity in transcripts: the key of its first item."""
    return items[0].key


def _unscored(items: list[JudgeItem], exc: BaseException, meter: UsageMeter, log: CallLog,
              seconds: float) -> list[ItemResult]:
    failure = classify_failure(exc)
    if failure is None:
        raise exc
    detail = redact_text(one_line(exc))[:300]
    return [ItemResult(key=item.key, status="unscored", reason=f"{failure.label}: {detail}",
                       retryable=failure.retryable, transient=failure.transient, raw=raw_answer(exc),
                       usage=meter.summary() if n == 0 else {}, seconds=seconds, trace=log.trace() if n == 0 else None)
            for n, item in enumerate(items)]


@dataclass
class JudgedGroup:
    """What :func:`group_judging` is given (``prediction``: the judge's per-candidate judgments) and makes of
    it (``results``)."""

    prediction: Any = None
    results: list[ItemResult] = field(default_factory=list)


@contextlib.contextmanager
def group_judging(items: list[JudgeItem]) -> Iterator[JudgedGroup]:
    """Around one group's prediction (threads or coroutines): a fresh usage meter and call log, and one
    :class:`ItemResult` per item: scored from ``prediction``, or all unscored with the failure's reason (a
    bug propagates)."""
    meter, log = UsageMeter(), CallLog()
    started = time.perf_counter()
    judged = JudgedGroup()
    with metering(meter), recording(log):
        try:
            yield judged
            judgments = judgments_of(judged.prediction, len(items))  # malformed: every item unscored
        except Exception as exc:  # classified; anything unknown is a bug and propagates
            judged.results = _unscored(items, exc, meter, log, time.perf_counter() - started)
            return
    seconds = time.perf_counter() - started
    group = {"group": group_key(items), "members": [i.key for i in items]}
    judged.results = [
        ItemResult.of_judgment(item.key, judgment, meter.summary() if n == 0 else {}, seconds,
                               log.trace() if n == 0 else None,
                               transcript=[Step.model_validate({**step.model_dump(), **group})
                                           for step in judgment.transcript])
        for n, (item, judgment) in enumerate(zip(items, judgments, strict=True))]


def group_inputs(items: list[JudgeItem], languages: dict[str, str]) -> dict[str, Any]:
    """The program's inputs for a group: the source and every candidate, in the group's order."""
    return dict(source=items[0].source, candidates=[i.translation for i in items], **languages)


def judge_group(program: Any, items: list[JudgeItem], languages: dict[str, str]) -> list[ItemResult]:
    """Judge the candidates of one source together under a fresh usage meter: one result per item."""
    with group_judging(items) as judged:
        judged.prediction = program(**group_inputs(items, languages))
    return judged.results


async def ajudge_group(program: Any, items: list[JudgeItem], languages: dict[str, str]) -> list[ItemResult]:
    """:func:`judge_group` as a coroutine (``program.acall``, ``mt evaluate --judging async``)."""
    with group_judging(items) as judged:
        judged.prediction = await program.acall(**group_inputs(items, languages))
    return judged.results

"""Judging items concurrently: bounded LM calls in flight, one program per thread, results into the journal.

An LM failure after DSPy's retries, or an answer DSPy cannot parse into the signature's types,
leaves the item *unscored* with its reason: it is never turned into a score. Retries with backoff
for rate limits, timeouts and server errors happen in DSPy's LM layer (``num_retries``).
"""

from __future__ import annotations

import contextlib
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import Any, Callable, Iterable

from tribunal.eval.mt.failures import classify_failure
from tribunal.eval.mt.items import JudgeItem
from tribunal.eval.mt.journal import ItemResult, Journal
from tribunal.eval.mt.meter import UsageMeter, metering
from tribunal.eval.tracking.call_log import CallLog, recording
from tribunal.eval.tracking.secrets import redact_text
from tribunal.programs.mqm.scheduling import CallSlots, Scheduler, scheduled


def unscored_reason(exc: BaseException) -> str | None:
    """A short label for an exception that makes an item unscored; None for a bug (re-raised)."""
    failure = classify_failure(exc)
    return failure.label if failure else None


RAW_ANSWER_LIMIT = 2000


def raw_answer(exc: BaseException) -> str | None:
    """The LM's own answer behind an unusable-answer failure, redacted and truncated (None if none)."""
    text = getattr(exc, "lm_response", None)
    if not text:
        return None
    text = redact_text(str(text))
    return text if len(text) <= RAW_ANSWER_LIMIT else text[:RAW_ANSWER_LIMIT] + " [truncated]"


def judge_item(program: Any, item: JudgeItem, languages: dict[str, str]) -> ItemResult:
    """Run ``program`` on one item under a fresh usage meter.

    The program's LMs must carry the meter relay (:func:`tribunal.eval.mt.meter.attach_relay`;
    :func:`tribunal.eval.mt.job.program_factory` attaches it), or their calls go uncounted.
    """
    meter = UsageMeter()
    log = CallLog()  # the item's calls, for its MLflow trace
    started = time.perf_counter()
    with metering(meter), recording(log):
        try:
            prediction = program(source=item.source, translation=item.translation, **languages)
        except Exception as exc:  # classified below; anything unknown is a bug and propagates
            failure = classify_failure(exc)
            if failure is None:
                raise
            detail = redact_text(" ".join(str(exc).split()))[:300]
            return ItemResult(key=item.key, status="unscored", reason=f"{failure.label}: {detail}",
                              retryable=failure.retryable, raw=raw_answer(exc),
                              usage=meter.summary(), seconds=time.perf_counter() - started, trace=log.trace())
    return ItemResult(
        key=item.key, status="scored", score=float(prediction.score),
        errors=[e.model_dump() for e in prediction.errors], transcript=prediction.transcript,
        debates=prediction.debates, usage=meter.summary(), seconds=time.perf_counter() - started,
        trace=log.trace(),
    )


def items_in_flight(concurrency: int) -> int:
    """Items judged at once for ``concurrency`` call slots.

    An item spends part of its time between calls (parsing, the journal) and a debate uses one
    slot at a time, so the slots only stay busy with more items than slots; the surplus items
    wait for slots behind the older ones and cost an idle thread each.
    """
    return concurrency + max(4, concurrency // 2)


def judge_all(
    make_program: Callable[[], Any],
    items: Iterable[JudgeItem],
    languages: dict[str, str],
    journal: Journal,
    concurrency: int = 8,
    on_result: Callable[[ItemResult], None] | None = None,
    fan_out: bool = True,
) -> None:
    """Judge every item with at most ``concurrency`` LM calls in flight; each result is journaled as it lands.

    Calls of items started earlier get free slots first, so started items finish before new ones
    begin. ``fan_out`` runs an item's independent calls (M-MAD's stage-1 agents, its debates of
    different dimensions) concurrently, within the same slots.
    """
    slots = CallSlots(concurrency)
    local = threading.local()
    width = items_in_flight(concurrency)

    with contextlib.ExitStack() as stack:
        calls = stack.enter_context(ThreadPoolExecutor(concurrency, thread_name_prefix="judge-call")) if fan_out else None
        scheduler = Scheduler(slots, calls)

        def work(number: int, item: JudgeItem) -> ItemResult:
            if not hasattr(local, "program"):
                local.program = make_program()
            with scheduled(scheduler, priority=number):
                result = judge_item(local.program, item, languages)
            journal.append(result)  # in the worker: the fsync releases the GIL and never stalls dispatch
            return result

        pending = enumerate(items)
        pool = stack.enter_context(ThreadPoolExecutor(max_workers=width, thread_name_prefix="judge"))
        running = set()
        try:
            while True:
                while len(running) < width:
                    entry = next(pending, None)
                    if entry is None:
                        break
                    running.add(pool.submit(work, *entry))
                if not running:
                    return
                finished, running = wait(running, return_when=FIRST_COMPLETED)
                for future in finished:
                    result = future.result()
                    if on_result:
                        on_result(result)
        except BaseException:
            for future in running:
                future.cancel()
            raise

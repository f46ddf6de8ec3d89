"""Judging items concurrently: bounded LM calls in flight, one program per thread, results into the journal.

An LM failure after DSPy's retries, or an answer that stays unusable after its re-asks
(:mod:`tribunal.programs.answers.reask`), leaves the item *unscored* with its reason in one line: it
is never turned into a score, unless the program's method defines a fallback for that role
(:mod:`tribunal.programs.fallbacks`): then the item is scored and marked ``degraded``. Retries with backoff
for rate limits, timeouts and server errors happen in DSPy's LM layer (``num_retries``).
"""

from __future__ import annotations

import contextlib
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Iterable, Iterator

from tribunal.errors import SpendingCapReached
from tribunal.runner import interruptible
from tribunal.runner.collector import steady_collector
from tribunal.eval.mt.failures import classify_failure, raw_answer
from tribunal.eval.mt.groups import judge_group, judging_units
from tribunal.core.mt_item import JudgeItem
from tribunal.core.item_result import ItemResult
from tribunal.core.mt_judgment import judgment_of
from tribunal.eval.mt.journal import Journal
from tribunal.runner.meter import UsageMeter, metering
from tribunal.eval.tracking.call_log import CallLog, recording
from tribunal.secrets import redact_text
from tribunal.programs.answers.unusable import one_line
from tribunal.core.scheduling import CallSlots, Scheduler, Ticket, admission_priority, scheduled
from tribunal.eval.mt.ensemble import predict


def unscored_reason(exc: BaseException) -> str | None:
    """A short label for an exception that makes an item unscored; None for a bug (re-raised)."""
    failure = classify_failure(exc)
    return failure.label if failure else None


def judge_item(program: Any, item: JudgeItem, languages: dict[str, str], sampling: Any = None) -> ItemResult:
    """Run ``program`` on one item under a fresh usage meter (``sampling.samples`` times, combined,
    with a ``SamplingSettings``: :mod:`tribunal.eval.mt.ensemble`).

    The program's LMs must carry the meter relay (:func:`tribunal.runner.meter.attach_relay`;
    :func:`tribunal.eval.mt.judge_builder.program_factory` attaches it), or their calls go uncounted.
    """
    with item_judging(item) as judged:
        judged.prediction = predict(program, item_inputs(item, languages), sampling)
    return judged.result


def item_inputs(item: JudgeItem, languages: dict[str, str]) -> dict[str, Any]:
    """The program's inputs for ``item``."""
    return dict(source=item.source, translation=item.translation, **languages, **item.extras())


class Judged:
    """What :func:`item_judging` is given (``prediction``) and makes of it (``result``)."""

    prediction: Any = None
    result: ItemResult | None = None


@contextlib.contextmanager
def item_judging(item: JudgeItem) -> Iterator[Judged]:
    """Around one item's prediction (threads or coroutines): its meter and call log, and its
    :class:`ItemResult`: scored from ``prediction`` (validated into a
    :class:`~tribunal.core.mt_judgment.MTJudgment`: a malformed one is unscored as ``malformed judgment``), or
    unscored with the failure's reason (a bug propagates)."""
    meter = UsageMeter()
    log = CallLog()  # the item's calls, for its MLflow trace
    started = time.perf_counter()
    judged = Judged()
    with metering(meter), recording(log):
        try:
            yield judged
            judgment = judgment_of(judged.prediction)  # a malformed result unscores the item, as a failure does
        except Exception as exc:  # classified below; anything unknown is a bug and propagates
            failure = classify_failure(exc)
            if failure is None:
                raise
            detail = redact_text(one_line(exc))[:300]
            judged.result = ItemResult(key=item.key, status="unscored", reason=f"{failure.label}: {detail}",
                                       retryable=failure.retryable, transient=failure.transient, raw=raw_answer(exc),
                                       usage=meter.summary(), seconds=time.perf_counter() - started, trace=log.trace())
            return
    judged.result = ItemResult.of_judgment(item.key, judgment, meter.summary(), time.perf_counter() - started,
                                           log.trace())


def max_items_in_flight(concurrency: int) -> int:
    """A ceiling on items judged at once (one thread each).

    Items are admitted by free call slots (:func:`~tribunal.core.scheduling.admission_priority`:
    a new item's first call outranks the later stages of started items), so items in flight grow until
    this bounds the threads. It is high because a low one holds the last items back until earlier ones
    finish, and their whole chains then make the run's tail: at 128 slots, 3 x slots + 16 left a 6.7 s
    tail of a 39 s run, 8 x slots + 16 a 1.4 s one (benchmarks/bench_client_cpu.py).
    """
    return 8 * concurrency + 16


def max_fanned_calls(concurrency: int) -> int:
    """A ceiling on the calls that items fan out at once: threads of each fan-out executor, made as needed.

    A fanned-out call should wait for its call slot in the slots' priority queue, not for a thread in
    an executor's first-come queue: with as many threads as slots, a debate of an item's second
    dimension waited there behind the stage-1 calls of items started after it, outside the critical-path
    order. M-MAD fans out at most three calls per item beside the one its own thread makes (four
    stage-1 agents, four debates; a debate's two debaters on the nested executor).
    """
    return 3 * max_items_in_flight(concurrency)


def judge_all(
    make_program: Callable[[], Any],
    items: Iterable[JudgeItem],
    languages: dict[str, str],
    journal: Journal,
    concurrency: int = 8,
    on_result: Callable[[ItemResult], None] | None = None,
    fan_out: bool = True,
    sampling: Any = None,
    cap: Any = None,
    together: bool = False,
) -> None:
    """Judge every item with at most ``concurrency`` LM calls in flight; each result is journaled as it lands.

    A new item starts when a call slot is free and no started item's call is waiting for one: the
    slot is taken for it (a ticket its first call uses), so items in flight follow the free slots.
    A freed slot goes to the waiting call with the most calls still ahead of it
    (:data:`~tribunal.core.scheduling.CALLS_AHEAD`), then to the item started earliest, so
    started items finish before new ones begin and no item has its whole chain left at the end.
    ``fan_out`` runs an item's independent calls (M-MAD's stage-1 agents, its debates of different
    dimensions, the two debaters of a round) concurrently, within the same slots. ``sampling``: K
    judgments per item (:func:`judge_item`).

    ``cap`` (a :class:`~tribunal.runner.spending_cap.SpendingCap`, its gate on the program's LMs):
    once it stops admitting, no new item starts; an item whose call it refused is left unjournaled
    (a resumed run judges it, its finished calls from the response cache) and the items in flight
    finish and are journaled.

    ``together`` (a judge that judges a source's candidates together): the unit of work is a source
    segment's items, one program call for them all (:mod:`tribunal.eval.mt.groups`); each item's result
    is journaled and reported as it would be alone.
    """
    slots = CallSlots(concurrency)
    with contextlib.ExitStack() as stack:
        stack.enter_context(steady_collector())  # no full collection walks the start-up heap mid-run
        calls, nested = _fan_out_executors(stack, concurrency) if fan_out else (None, None)
        work = _unit_worker(make_program, Scheduler(slots, calls, nested=nested), languages, journal, sampling,
                            together)
        units = enumerate(judging_units(items, together))
        _admit_and_collect(stack, slots, work, units, max_items_in_flight(concurrency), cap, on_result)


def _fan_out_executors(stack: contextlib.ExitStack, concurrency: int) -> tuple[ThreadPoolExecutor, ThreadPoolExecutor]:
    """The executors of fanned-out calls and of their nested calls, threads enough for every one of them:
    each waits for its slot in priority order."""
    width = max_fanned_calls(concurrency)
    return (stack.enter_context(ThreadPoolExecutor(width, thread_name_prefix="judge-call")),
            stack.enter_context(ThreadPoolExecutor(width, thread_name_prefix="judge-nested")))


def _unit_worker(make_program: Callable[[], Any], scheduler: Scheduler, languages: dict[str, str], journal: Journal,
                 sampling: Any, together: bool) -> Callable[[int, list[JudgeItem], Ticket], list[ItemResult]]:
    """What a worker thread does with one unit (an item, or a source's items together): judge it with the
    thread's own program under ``scheduler`` and journal its results; none when the cap cut it short."""
    local = threading.local()

    def work(number: int, unit: list[JudgeItem], ticket: Ticket) -> list[ItemResult]:
        try:
            if not hasattr(local, "program"):
                local.program = make_program()
        except BaseException:
            ticket.release_unused()
            raise
        try:
            with scheduled(scheduler, priority=number, ticket=ticket):
                results = judge_group(local.program, unit, languages) if together else \
                    [judge_item(local.program, unit[0], languages, sampling)]
        except SpendingCapReached:
            return []  # cut short by the cap: left for the resumed run
        for result in results:
            journal.append(result)  # in the worker: the fsync releases the GIL and never stalls dispatch
        return results

    return work


def _admit_and_collect(stack: contextlib.ExitStack, slots: CallSlots, work: Callable[..., list[ItemResult]],
                       units: Iterator[tuple[int, list[JudgeItem]]], ceiling: int, cap: Any,
                       on_result: Callable[[ItemResult], None] | None) -> None:
    """Start a unit each time a call slot is free (up to ``ceiling`` in flight, while ``cap`` admits) and
    report each finished unit's results, until every unit is done; on an error, cancel what has not started
    and give back the slots it held."""
    pool = stack.enter_context(ThreadPoolExecutor(max_workers=ceiling, thread_name_prefix="judge"))
    admitter = stack.enter_context(ThreadPoolExecutor(max_workers=1, thread_name_prefix="judge-admit"))
    completions = interruptible.Completions()  # a Ctrl-C a worker took still lands
    running: dict = {}  # future -> the ticket its item started with
    admission = None  # a future holding a free slot once no started item wants one
    exhausted = False
    admitted = 0  # items started so far: the number of the next one
    try:
        while True:
            if admission is None and not exhausted and len(running) < ceiling:
                admission = completions.watch(admitter.submit(slots.acquire, admission_priority(admitted)))
            if not running and admission is None:
                return
            finished = completions.next()
            if finished is admission:
                slot = admission.result()
                admission = None
                entry = next(units, None) if cap is None or cap.admitting() else None
                if entry is None:
                    slots.release(slot)
                    exhausted = True
                else:
                    admitted += 1
                    ticket = Ticket(slots, slot)
                    running[completions.watch(pool.submit(work, *entry, ticket))] = ticket
            else:
                del running[finished]
                for result in finished.result():
                    if on_result:
                        on_result(result)
    except BaseException:
        for future, ticket in running.items():
            if future.cancel():
                ticket.release_unused()
        if admission is not None:  # it gets its slot once the started items are done: give it back
            admission.add_done_callback(lambda f: f.exception() is None and slots.release(f.result()))
        raise

"""Judging items as coroutines on one event loop (``mt evaluate --judging async``): a call in flight
costs a task and a socket, not a thread.

The same contract as :func:`tribunal.eval.mt.judging.judge_all`, on asyncio: call slots served
critical path first (:class:`~tribunal.core.call_slots.AsyncCallSlots`, the same priorities), a new
item admitted when a slot is free and no started item's call wants it (the slot handed to it as a
:class:`~tribunal.core.scheduling.Ticket`), an item's independent calls gathered
(:func:`~tribunal.core.async_scheduling.afan_out`), each result journaled as it lands (the fsync on
a helper thread), the spending cap's refusals left for the resumed run, a bug re-raised.
While the loop judges, no garbage collection pauses it (:mod:`tribunal.runner.loop_collector`) and
DSPy's pricing step runs in place rather than on a helper thread (:mod:`tribunal.runner.loop_executor`). One
program serves every item (a task holds no state on it between its awaits that another could see).

What differs: a Ctrl-C cancels the items in flight (their finished calls stay in the response
cache; a rerun resumes from the journal) instead of waiting for them; items in flight are bounded
by the slots alone (no thread ceiling).

The judge needs an async form (``aforward``). Every MT judge of the registry has one, with every
setting: M-MAD with each debate strategy of the registry (consensus, deliberation, interactive-review,
consultancy-review), GEMBA-MQM, GEMBA-MQM V2, GEMBA-ESA, EAPrompt, MQM-APE, error-free and joint-mqm,
sampled ensembles (``--samples``) of any of them too. Each is written once as a plan
(:mod:`tribunal.programs.mqm.planned`), which ``forward`` runs on threads and ``aforward`` awaits, so
both paths make the same calls. :func:`require_async` refuses, before any call, a judge added without
one (or holding a sub-module without one, e.g. a debate strategy registered with ``forward`` only). A
judge of a source's candidates together (joint-mqm) is run once per source
(:func:`~tribunal.eval.mt.groups.ajudge_group`, the same results as the threaded
:func:`~tribunal.eval.mt.groups.judge_group`).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Callable, Iterable

from tribunal.core.async_scheduling import afan_out
from tribunal.core.call_slots import AsyncCallSlots
from tribunal.core.item_result import ItemResult
from tribunal.core.mt_item import JudgeItem
from tribunal.core.scheduling import Scheduler, Ticket, admission_priority, scheduled
from tribunal.errors import SpendingCapReached, UserError
from tribunal.eval.mt.ensemble import apredict
from tribunal.eval.mt.groups import ajudge_group, judging_units
from tribunal.eval.mt.journal import Journal
from tribunal.eval.mt.judging import item_inputs, item_judging, judge_all
from tribunal.runner.loop_collector import deferred_collection
from tribunal.runner.loop_executor import LoopExecutor

MAX_ASYNC_CONCURRENCY = 4096
"""``--concurrency`` on the async path (the threaded path stops at 512)."""


async def ajudge_item(program: Any, item: JudgeItem, languages: dict[str, str], sampling: Any = None) -> ItemResult:
    """:func:`tribunal.eval.mt.judging.judge_item` as a coroutine (``program.acall``)."""
    with item_judging(item) as judged:
        judged.prediction = await apredict(program, item_inputs(item, languages), sampling)
    return judged.result


def require_async(program: Any) -> None:
    """Refuse, before any call, a program with a part that has no async form."""
    import dspy  # heavy: dspy

    missing = sorted({type(module).__name__ for _, module in program.named_sub_modules()  # the judge itself too
                      if isinstance(module, dspy.Module) and not isinstance(module, dspy.Predict)
                      and hasattr(type(module), "forward") and not hasattr(type(module), "aforward")})
    if missing:
        raise UserError(f"--judging async: {', '.join(missing)} has no async form yet (aforward); "
                        "use --judging threads")


def ajudge_all(make_program: Callable[[], Any], items: Iterable[JudgeItem], languages: dict[str, str],
               journal: Journal, concurrency: int = 8, on_result: Callable[[ItemResult], None] | None = None,
               fan_out: bool = True, sampling: Any = None, cap: Any = None, together: bool = False) -> None:
    """:func:`~tribunal.eval.mt.judging.judge_all` on one event loop (see the module docstring); ``together``:
    a unit of work is a source's items, judged in one program call (:mod:`tribunal.eval.mt.groups`)."""
    program = make_program()
    require_async(program)
    units = judging_units(items, together)

    async def judge_unit(unit: list[JudgeItem]) -> list[ItemResult]:
        if together:
            return await ajudge_group(program, unit, languages)
        return [await ajudge_item(program, unit[0], languages, sampling)]

    deferred_collection(_judge_all(program, judge_unit, units, journal, concurrency, on_result, fan_out, cap))



RUNNERS: dict[str, Callable[..., None]] = {"threads": judge_all, "async": ajudge_all}
"""The item runner of each judging path (``--judging``), in this process and in each worker process."""

async def _judge_all(program: Any, judge_unit: Callable[[list[JudgeItem]], Any], units: list[list[JudgeItem]],
                     journal: Journal, concurrency: int, on_result: Callable[[ItemResult], None] | None,
                     fan_out: bool, cap: Any) -> None:
    asyncio.get_running_loop().set_default_executor(LoopExecutor())
    slots = AsyncCallSlots(concurrency)
    scheduler = Scheduler(slots, in_order=not fan_out)
    running: set[asyncio.Task] = set()
    failed: list[BaseException] = []
    settled = asyncio.Event()  # set when no item runs (or one raised a bug)

    async def work(number: int, unit: list[JudgeItem], ticket: Ticket) -> None:
        try:
            with scheduled(scheduler, priority=number, ticket=ticket):
                results = await judge_unit(unit)
        except SpendingCapReached:
            return  # cut short by the cap: left for the resumed run
        for result in results:
            await asyncio.to_thread(journal.append, result)  # the fsync off the loop
            if on_result:
                on_result(result)

    def landed(task: asyncio.Task) -> None:
        running.discard(task)
        if not task.cancelled() and task.exception() is not None:
            failed.append(task.exception())
        if failed or not running:
            settled.set()

    pending = enumerate(units)
    admitted = 0  # items started so far: the number of the next one
    try:
        while not failed:
            slot = await slots.acquire(admission_priority(admitted))
            entry = next(pending, None) if not failed and (cap is None or cap.admitting()) else None
            if entry is None:
                slots.release(slot)
                break
            admitted += 1
            task = asyncio.create_task(work(*entry, Ticket(slots, slot)))
            running.add(task)
            settled.clear()
            task.add_done_callback(landed)
        while running and not failed:
            await settled.wait()
            settled.clear()
        if failed:
            raise failed[0]
    finally:
        for task in list(running):
            task.cancel()
        with contextlib.suppress(BaseException):
            await asyncio.gather(*running, return_exceptions=True)
        await _close_connections(program)


async def _close_connections(program: Any) -> None:
    """Close the sockets this loop opened for the program's LMs (their async engines' pools)."""
    lms = getattr(program, "lms", None)
    for lm in {id(lm): lm for lm in ([lms.default, *lms.roles.values()] if lms is not None else [])}.values():
        close = getattr(getattr(lm, "_async_engine_spec", None), "aclose", None)
        if close is not None:
            with contextlib.suppress(Exception):  # a socket that will not close cleanly is the peer's loss
                await close()

"""The scheduler's contract for coroutines: call slots awaited, independent calls gathered.

``mt evaluate --judging async`` judges every item as a task on one event loop; a runner installs
the same :class:`~tribunal.core.scheduling.Scheduler` (its ``slots`` an
:class:`~tribunal.core.call_slots.AsyncCallSlots`) with the same
:func:`~tribunal.core.scheduling.scheduled`: context variables follow a task as they follow a
thread. :func:`acall_slot` and :func:`arequest_slot` are :func:`~tribunal.core.scheduling.call_slot`
and :func:`~tribunal.core.scheduling.request_slot` for an ``async with`` (the same plan:
:func:`~tribunal.core.scheduling.slot_plan`, the same critical-path priority, the item's ticket
first); :func:`afan_out` is :func:`~tribunal.core.scheduling.fan_out` for coroutines.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import AsyncIterator, Awaitable, Callable, Sequence, TypeVar

from tribunal.core.scheduling import current_scheduler, deferred_stage, slot_plan

Result = TypeVar("Result")


@contextlib.asynccontextmanager
async def acall_slot(stage: str | None = None, deferred: bool = False) -> AsyncIterator[None]:
    """:func:`~tribunal.core.scheduling.call_slot`, awaiting the slot instead of blocking a thread."""
    plan = slot_plan(stage, deferred)
    if isinstance(plan, contextlib.AbstractContextManager):
        with plan:
            yield
        return
    slots, priority = plan
    hold = slots.hold(priority)
    if isinstance(hold, contextlib.AbstractAsyncContextManager):
        async with hold:
            yield
    else:  # threaded CallSlots under a coroutine (not the async runner's): held as before
        with hold:
            yield


@contextlib.asynccontextmanager
async def arequest_slot() -> AsyncIterator[None]:
    """:func:`~tribunal.core.scheduling.request_slot` for coroutines (a no-op outside a deferred slot)."""
    deferred = deferred_stage()
    if deferred is None:
        yield
        return
    async with acall_slot(deferred[0]):
        yield


async def afan_out(calls: Sequence[Callable[[], Awaitable[Result]]]) -> list[Result]:
    """The results of ``calls`` (coroutine functions), in order, run concurrently as tasks.

    Each task runs in a copy of the caller's context (as each fanned-out thread does). Every call is
    awaited before an exception propagates, so none outlives the item; the first exception in
    ``calls`` order is raised. No executor, no depth levels: a waiting task holds no thread. Under a
    scheduler with ``in_order`` (``--no-fan-out``) the calls run one after another.
    """
    scheduler = current_scheduler()
    if len(calls) < 2 or (scheduler is not None and scheduler.in_order):
        return [await call() for call in calls]
    tasks = [asyncio.ensure_future(call()) for call in calls]
    try:
        outcomes = await asyncio.gather(*tasks, return_exceptions=True)
    except BaseException:  # cancelled from outside: cancel the calls, let them finish, then propagate
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            raise outcome
    return [outcome for outcome in outcomes if not isinstance(outcome, BaseException)]

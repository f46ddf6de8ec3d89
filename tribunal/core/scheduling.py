"""Bounding LM calls in flight, and running an item's independent calls side by side.

A runner installs a :class:`Scheduler` with :func:`scheduled` (a field of the run context,
:mod:`tribunal.core.run_context`, so nothing is global and a program run without one is unchanged:
calls one after another, no limit).
:func:`tribunal.programs.mqm.roles.invoke` holds one of the scheduler's call slots around every
predictor call, so at most ``slots`` LM calls are in flight however many items are. Waiting calls
are served critical path first: the call with the longest chain of calls still to run after it
(:data:`CALLS_AHEAD`, the stages each judge's registry entry declares: an M-MAD stage-1 call has a
debate and the judge after it, a debate round the rounds left and the judge, the judge none), then by item priority (the runner numbers items in
start order). So no item is left with its whole chain to run at the end: the run's tail is about
one chain long.

A runner admits a new item when a slot is free and no started item's call with as long a chain
ahead wants it: it waits for a slot at :func:`admission_priority` (that of the item's first call)
and hands that slot to the new item as a :class:`Ticket`, which the item's first call uses. So the
number of items in flight follows the free slots (up to the runner's thread ceiling) instead of a
fixed window. The slots themselves, numbered so that a transport can keep a connection per slot:
:mod:`tribunal.core.call_slots`.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from concurrent.futures import Executor
from typing import Callable, Iterator, Mapping, Sequence, TypeVar

from tribunal.core.call_slots import AsyncCallSlots, CallSlots, in_slot
from tribunal.core.judges import JUDGES
from tribunal.core.run_context import current, reset, run_context, setter

__all__ = ["CallSlots", "Scheduler", "Ticket", "admission_priority", "call_priority", "call_slot", "calls_ahead",
           "fan_out", "request_slot", "scheduled"]


class _CallsAhead(Mapping[str, int]):
    """``{stage: calls ahead}`` read live from the judge registry (``Judge.stages``), so a judge registered
    later is ranked by its own stages."""

    def __getitem__(self, stage: str) -> int:
        return JUDGES.calls_ahead()[stage]

    def __iter__(self) -> Iterator[str]:
        return iter(JUDGES.calls_ahead())

    def __len__(self) -> int:
        return len(JUDGES.calls_ahead())


CALLS_AHEAD: Mapping[str, int] = _CallsAhead()
"""The most sequential calls an item still makes after a call of each stage (an unknown stage: none), as
the judges declare them; a debate says how many calls it may still make with :func:`calls_ahead`, round
by round."""
_CHAIN_WEIGHT = float(2 ** 32)  # one call more ahead outranks any item number below 2**32
_SET_AHEAD = setter("calls_ahead")
_SET_DEFERRED = setter("deferred_slot")
_SET_DEPTH = setter("fan_out_depth")
T = TypeVar("T")


@contextlib.contextmanager
def calls_ahead(count: int) -> Iterator[None]:
    """Rank the enclosed calls as having ``count`` sequential calls of their item still after them."""
    token = _SET_AHEAD(count)
    try:
        yield
    finally:
        reset(token)


def call_priority(item: float, ahead: int) -> float:
    """The slot priority of a call (lower first): longer chains still ahead first, then earlier items."""
    return item - ahead * _CHAIN_WEIGHT


def admission_priority(item: float) -> float:
    """The priority a runner waits at to start item number ``item``: that of its first call, which has
    the whole chain ahead of it (so behind the first calls of items started before it, ahead of every
    later stage): each item's chain starts as early as the slots allow."""
    return call_priority(item, max(CALLS_AHEAD.values(), default=0))


class Ticket:
    """A call slot taken for an item before it started (number ``slot``); the item's first call uses it (once)."""

    def __init__(self, slots: CallSlots, slot: int | None = None):
        self.slots, self.slot = slots, slot
        self._lock = threading.Lock()
        self._held = True

    def claim(self) -> bool:
        """True for the one caller that gets the slot; it must release it to ``slots``."""
        with self._lock:
            held, self._held = self._held, False
        return held

    def release_unused(self) -> None:
        """Give the slot back if no call used it (an item that made no call, or failed first)."""
        if self.claim():
            self.slots.release(self.slot)


@contextlib.contextmanager
def _claimed(ticket: Ticket) -> Iterator[None]:
    try:
        with in_slot(ticket.slot):
            yield
    finally:
        ticket.slots.release(ticket.slot)


class Scheduler:
    """Call slots plus, optionally, executors for fanning out an item's independent calls.

    ``executor`` runs the calls an item fans out; ``nested`` (optional) the calls that one of those
    fans out in turn (M-MAD's two debaters of a round, in a debate of another dimension), which
    otherwise run one after another. ``gather`` replaces how independent calls are run altogether
    (batch mode runs them one after another, each possibly parking, and raises only after all were
    tried).
    """

    def __init__(self, slots: CallSlots | None = None, executor: Executor | None = None,
                 gather: Callable[[Sequence[Callable[[], object]]], list[object]] | None = None,
                 nested: Executor | None = None, in_order: bool = False):
        self.slots, self.executor, self.gather, self.nested = slots, executor, gather, nested
        self.in_order = in_order  # the async runner's --no-fan-out: an item's calls one after another


def current_scheduler() -> "Scheduler | None":
    """The scheduler the enclosed program calls run under (None: none)."""
    return current().scheduler


@contextlib.contextmanager
def scheduled(scheduler: Scheduler | None, priority: float = 0, ticket: Ticket | None = None) -> Iterator[None]:
    """Run the enclosed program calls under ``scheduler``, with the item's ``priority`` (lower first).

    ``ticket``: a slot already taken for this item (its first call uses it; given back if unused).
    """
    with run_context(scheduler=scheduler, priority=priority, ticket=ticket):
        try:
            yield
        finally:
            if ticket is not None:
                ticket.release_unused()


def call_slot(stage: str | None = None, deferred: bool = False) -> contextlib.AbstractContextManager:
    """Hold a call slot of the current scheduler (a no-op without one); the item's ticket first.

    ``stage``: the call's stage, which ranks it by the calls its item may still make after it
    (:func:`calls_ahead` if set, else :data:`CALLS_AHEAD`). ``deferred``: the enclosed code does not
    hold the slot; the LM takes it around each request it sends (:func:`request_slot`), so the
    client's own work on a call (the prompt, the parsing) is done outside the slot and a slot is
    held only while its request is out (an LM that says it does so: ``takes_call_slots``).
    """
    plan = slot_plan(stage, deferred)
    return plan if isinstance(plan, contextlib.AbstractContextManager) else plan[0].hold(plan[1])


def slot_plan(stage: str | None,
              deferred: bool) -> contextlib.AbstractContextManager | tuple[CallSlots | AsyncCallSlots, float]:
    """What :func:`call_slot` holds: a context manager needing no wait (nothing, the deferral, the
    item's ticket), or ``(slots, priority)`` to wait at (shared with the async path,
    :func:`tribunal.core.async_scheduling.acall_slot`)."""
    if deferred:
        return _deferring(stage)
    run = current()
    scheduler = run.scheduler
    if scheduler is None or scheduler.slots is None:
        return contextlib.nullcontext()
    ticket = run.ticket
    if ticket is not None and ticket.claim():
        return _claimed(ticket)
    ahead = run.calls_ahead
    if ahead is None:
        ahead = JUDGES.calls_ahead().get(stage or "", 0)
    return scheduler.slots, call_priority(run.priority, ahead)


def deferred_stage() -> tuple[str | None] | None:
    """The stage of the deferred :func:`call_slot` this code runs in (``(stage,)``), else None."""
    return current().deferred_slot


@contextlib.contextmanager
def _deferring(stage: str | None) -> Iterator[None]:
    token = _SET_DEFERRED((stage,))
    try:
        yield
    finally:
        reset(token)


def request_slot() -> contextlib.AbstractContextManager:
    """The call slot of a deferred :func:`call_slot`, held around one LM request (a no-op outside one)."""
    deferred = current().deferred_slot
    if deferred is None:
        return contextlib.nullcontext()
    return call_slot(deferred[0])


def _at_depth(depth: int, call: Callable[[], T]) -> T:
    _SET_DEPTH(depth)  # in the call's own copied context only: never reset
    return call()


def fan_out(calls: Sequence[Callable[[], T]]) -> list[T]:
    """The results of ``calls``, in order; run concurrently when the scheduler has an executor.

    Each call runs in a copy of the caller's context (DSPy's settings overrides and the run context:
    the usage meter, the stage tag). The first call runs on this thread. Every call is
    awaited before an exception propagates, so none outlives the item. A call running on the
    scheduler's ``executor`` fans out on its ``nested`` executor, and a call running there fans out
    no further (its own calls run in order): each level waits only on the level below it, so
    however small the executors are, no call waits on a thread held by a call waiting on it.
    """
    run = current()
    scheduler = run.scheduler
    if scheduler is not None and scheduler.gather is not None:
        return scheduler.gather(calls)
    depth = run.fan_out_depth
    levels = (None, None) if scheduler is None else (scheduler.executor, scheduler.nested)
    executor = levels[depth] if depth < len(levels) else None
    if executor is None or len(calls) < 2:
        return [call() for call in calls]
    futures = [executor.submit(contextvars.copy_context().run, _at_depth, depth + 1, call) for call in calls[1:]]
    try:
        first = calls[0]()
    finally:
        for future in futures:
            with contextlib.suppress(Exception):  # each exception is re-raised below, in order
                future.result()
    return [first] + [future.result() for future in futures]

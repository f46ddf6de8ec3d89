"""Call slots: a semaphore whose waiters are served by priority, and whose slots have numbers.

At most ``size`` LM calls hold a slot at once (:mod:`tribunal.core.scheduling` says who waits at
which priority). Each slot has a number, distinct within the process (two runs sharing an engine
never share one), and a freed slot goes straight to the first waiter with its number, so no two
calls holding slots hold the same number. While a call holds one, :func:`current_slot` gives its
number: an HTTP transport keeps a connection per slot number
(:mod:`tribunal.programs.thread_transport`), so the sockets a run opens are as many as its slots,
reused call after call, and no two calls in flight share one (no lock they contend for).

:class:`AsyncCallSlots` is the same semaphore for coroutines on one event loop (``mt evaluate
--judging async``): the same order, numbering and hand-over (the bookkeeping is shared,
:class:`_SlotBook`), a waiter parked on a future instead of a thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import threading
from typing import AsyncIterator, Iterator, Union

from tribunal.core.run_context import current, reset, setter

_SET_SLOT = setter("call_slot")
Waker = Union[threading.Event, "asyncio.Future[None]"]
"""What a waiter is woken by: an event (a thread waits) or a future (a coroutine awaits)."""
Waiter = tuple[float, int, Waker, list[int | None]]
"""A waiter's entry: ``(priority, arrival, waker, [slot handed to it])``, ordered by the first two."""
_FIRST_NUMBERS = itertools.count(0, 1 << 20)  # each CallSlots numbers its slots from its own start


def current_slot() -> int | None:
    """The number of the call slot the current call holds (None outside one)."""
    return current().call_slot


@contextlib.contextmanager
def in_slot(slot: int | None) -> Iterator[None]:
    """Mark the enclosed code as holding slot number ``slot`` (for :func:`current_slot`)."""
    token = _SET_SLOT(slot)
    try:
        yield
    finally:
        reset(token)


class _SlotBook:
    """The bookkeeping both semaphores share: busy count, free numbers, waiters by (priority, arrival)."""

    def __init__(self, size: int):
        if size < 1:
            raise ValueError("at least one call slot is needed")
        self.size = size
        self.peak = 0
        self._busy = 0
        first = next(_FIRST_NUMBERS)
        self._free = list(range(first + size - 1, first - 1, -1))  # slot numbers not held; popped from the end
        self._waiters: list[Waiter] = []
        self._arrival = itertools.count()

    def _take(self) -> tuple[bool, int | None]:
        """``(True, number)`` if a slot is free and nobody waits (taken now), else ``(False, None)``."""
        if self._busy < self.size and not self._waiters:
            self._busy += 1
            self.peak = max(self.peak, self._busy)
            return True, self._free.pop() if self._free else None
        return False, None

    def _queue(self, priority: float, waker: Waker) -> Waiter:
        entry: Waiter = (priority, next(self._arrival), waker, [None])
        heapq.heappush(self._waiters, entry)
        return entry

    def _withdraw(self, entry: Waiter) -> None:
        self._waiters.remove(entry)
        heapq.heapify(self._waiters)

    def _give_back(self, slot: int | None) -> Waiter | None:
        """Free ``slot``; the waiter it is handed to (to wake), if any (no barging by new arrivals)."""
        if self._waiters:
            waiter = heapq.heappop(self._waiters)  # busy count unchanged
            waiter[3][0] = slot
            return waiter
        self._busy -= 1
        if slot is not None:
            self._free.append(slot)
        return None


class CallSlots(_SlotBook):
    """A semaphore whose waiters are served lowest ``priority`` first (ties: first come), slots numbered."""

    def __init__(self, size: int):
        super().__init__(size)
        self._lock = threading.Lock()

    def acquire(self, priority: float = 0) -> int | None:
        """Take a slot, waiting for one if all are busy; returns its number (give it back to :meth:`release`)."""
        with self._lock:
            taken, slot = self._take()
            if taken:
                return slot
            event = threading.Event()
            entry = self._queue(priority, event)
        try:
            event.wait()
        except BaseException:
            with self._lock:
                handed = event.is_set()
                if not handed:
                    self._withdraw(entry)
            if handed:  # the slot reached us as we were interrupted: pass it on
                self.release(entry[3][0])
            raise
        return entry[3][0]

    def release(self, slot: int | None = None) -> None:
        """Give slot number ``slot`` back; it goes straight to the first waiter (no barging by new arrivals)."""
        with self._lock:
            waiter = self._give_back(slot)
            if waiter is not None:
                self._hand_over(waiter, slot)

    def _hand_over(self, waiter: tuple[float, int, threading.Event, list], slot: int | None) -> None:
        """Give ``slot`` to ``waiter`` (called with the lock held)."""
        waiter[2].set()

    @contextlib.contextmanager
    def hold(self, priority: float = 0) -> Iterator[int | None]:
        """Hold a slot for the enclosed code (its number is :func:`current_slot` there)."""
        slot = self.acquire(priority)
        try:
            with in_slot(slot):
                yield slot
        finally:
            self.release(slot)


class AsyncCallSlots(_SlotBook):
    """:class:`CallSlots` for coroutines of one event loop: a waiter costs a future, not a thread.

    Used from the loop's thread only (no lock); :meth:`release` is synchronous, so a
    :class:`~tribunal.core.scheduling.Ticket` gives a slot back the same way to either kind.
    """

    async def acquire(self, priority: float = 0) -> int | None:
        """Take a slot, waiting (in priority order) if all are busy; returns its number."""
        taken, slot = self._take()
        if taken:
            return slot
        future = asyncio.get_running_loop().create_future()
        entry = self._queue(priority, future)
        try:
            await future
        except BaseException:  # cancelled: withdraw, or pass on a slot handed over meanwhile
            if future.done() and not future.cancelled():
                self.release(entry[3][0])
            else:
                with contextlib.suppress(ValueError):
                    self._withdraw(entry)
            raise
        return entry[3][0]

    def release(self, slot: int | None = None) -> None:
        """Give ``slot`` back; the first waiter gets it."""
        waiter = self._give_back(slot)
        if waiter is not None:
            waiter[2].set_result(None)

    @contextlib.asynccontextmanager
    async def hold(self, priority: float = 0) -> AsyncIterator[int | None]:
        """Hold a slot for the enclosed code (its number is :func:`current_slot` there)."""
        slot = await self.acquire(priority)
        try:
            with in_slot(slot):
                yield slot
        finally:
            self.release(slot)

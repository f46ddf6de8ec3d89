"""Call slots: a semaphore whose waiters are served by priority, and whose slots have numbers.

At most ``size`` LM calls hold a slot at once (:mod:`tribunal.core.scheduling` says who waits at
which priority). Each slot has a number, distinct within the process (two runs sharing an engine
never share one), and a freed slot goes straight to the first waiter with its number, so no two
calls holding slots hold the same number. While a call holds one, :func:`current_slot` gives its
number: an HTTP transport keeps a connection per slot number
(:mod:`tribunal.programs.thread_transport`), so the sockets a run opens are as many as its slots,
reused call after call, and no two calls in flight share one (no lock they contend for).
"""

from __future__ import annotations

import contextlib
import contextvars
import heapq
import itertools
import threading
from typing import Iterator

_SLOT: contextvars.ContextVar[int | None] = contextvars.ContextVar("tribunal_call_slot", default=None)
_FIRST_NUMBERS = itertools.count(0, 1 << 20)  # each CallSlots numbers its slots from its own start


def current_slot() -> int | None:
    """The number of the call slot the current call holds (None outside one)."""
    return _SLOT.get()


@contextlib.contextmanager
def in_slot(slot: int | None) -> Iterator[None]:
    """Mark the enclosed code as holding slot number ``slot`` (for :func:`current_slot`)."""
    token = _SLOT.set(slot)
    try:
        yield
    finally:
        _SLOT.reset(token)


class CallSlots:
    """A semaphore whose waiters are served lowest ``priority`` first (ties: first come), slots numbered."""

    def __init__(self, size: int):
        if size < 1:
            raise ValueError("at least one call slot is needed")
        self.size = size
        self.peak = 0
        self._busy = 0
        self._lock = threading.Lock()
        first = next(_FIRST_NUMBERS)
        self._free = list(range(first + size - 1, first - 1, -1))  # slot numbers not held; popped from the end
        self._waiters: list[tuple[float, int, threading.Event, list]] = []
        self._arrival = itertools.count()

    def acquire(self, priority: float = 0) -> int | None:
        """Take a slot, waiting for one if all are busy; returns its number (give it back to :meth:`release`)."""
        with self._lock:
            if self._busy < self.size and not self._waiters:
                self._busy += 1
                self.peak = max(self.peak, self._busy)
                return self._free.pop() if self._free else None
            event, handed_slot = threading.Event(), [None]
            entry = (priority, next(self._arrival), event, handed_slot)
            heapq.heappush(self._waiters, entry)
        try:
            event.wait()
        except BaseException:
            with self._lock:
                handed = event.is_set()
                if not handed:
                    self._waiters.remove(entry)
                    heapq.heapify(self._waiters)
            if handed:  # the slot reached us as we were interrupted: pass it on
                self.release(handed_slot[0])
            raise
        return handed_slot[0]

    def release(self, slot: int | None = None) -> None:
        """Give slot number ``slot`` back; it goes straight to the first waiter (no barging by new arrivals)."""
        with self._lock:
            if self._waiters:
                self._hand_over(heapq.heappop(self._waiters), slot)  # busy count unchanged
            else:
                self._busy -= 1
                if slot is not None:
                    self._free.append(slot)

    def _hand_over(self, waiter: tuple[float, int, threading.Event, list], slot: int | None) -> None:
        """Give ``slot`` to ``waiter`` (called with the lock held)."""
        waiter[3][0] = slot
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

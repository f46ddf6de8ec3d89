"""Waiting on a condition in tests, instead of sleeping and hoping the other thread got there.

A test that orders threads or processes waits for the state it needs (a queue length, a file, a
line, a counter) with a generous deadline that only a broken program reaches; the deadline is
never what the test measures.
"""

from __future__ import annotations

import time
from typing import Callable

DEADLINE = 60.0


def wait_for(condition: Callable[[], bool], what: str, timeout: float = DEADLINE) -> None:
    """Return as soon as ``condition()`` holds; fail naming ``what`` if it never does."""
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.002)


class Gate:
    """Holds a server's requests once ``closes_when()`` holds, until :meth:`open` (for a test to act
    on a run stopped at a known point: e.g. Ctrl-C after the third item is journaled, whatever the
    machine's speed). ``held`` counts the requests waiting."""

    def __init__(self, closes_when: Callable[[], bool]):
        import threading

        self.closes_when = closes_when
        self.held = 0
        self._opened = threading.Event()
        self._lock = threading.Lock()

    def pass_through(self) -> None:
        """Called by the server before answering: returns at once, or waits while the gate is closed."""
        if self._opened.is_set() or not self.closes_when():
            return
        with self._lock:
            self.held += 1
        self._opened.wait(DEADLINE)

    def open(self) -> None:
        self._opened.set()

"""Waits in the main thread that a Ctrl-C always interrupts at once.

A process-directed SIGINT (a terminal's Ctrl-C, ``kill -INT``) is taken by whichever thread the
kernel picks, often a worker that is running when the main thread is asleep. CPython then only
records it: the Python handler (KeyboardInterrupt, tribunal's two-step handler) runs when the main
thread next executes Python code. A main thread blocked with no timeout on a future
(``Future.result()``, ``concurrent.futures.wait``, ``queue.get()``) sleeps through it until the awaited work ends,
which for an LM call can be minutes. Waiting in short slices lets the handler run within one slice.
"""

from __future__ import annotations

import queue
from concurrent.futures import Future, wait
from typing import Any

SLICE_SECONDS = 0.25


def result(future: Future) -> Any:
    """``future.result()``, waking every slice so that a pending Ctrl-C is raised here."""
    while not wait([future], timeout=SLICE_SECONDS).done:
        pass
    return future.result()


class Completions:
    """Futures handed back as they finish, one at a time, to a main thread that Ctrl-C can interrupt.

    ``wait(futures, FIRST_COMPLETED)`` takes and releases the lock of every future it is given each
    time it has to sleep: a runner waiting on a few hundred items in flight, once per item started or
    finished, spent a fifth of the judging loop's CPU there. Here each watched future reports itself
    once, when it finishes (a done-callback into a queue), so a wait costs the same however many wait.
    """

    def __init__(self) -> None:
        self._done: queue.SimpleQueue[Future] = queue.SimpleQueue()

    def watch(self, future: Future) -> Future:
        """Report ``future`` to :meth:`next` once it finishes (at once if it already has); returns it."""
        future.add_done_callback(self._done.put)
        return future

    def next(self) -> Future:
        """The next watched future to finish (in the order they finished), waking every slice."""
        while True:
            try:
                return self._done.get(timeout=SLICE_SECONDS)
            except queue.Empty:
                pass

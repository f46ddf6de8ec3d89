"""Waits in the main thread that a Ctrl-C always interrupts at once.

A process-directed SIGINT (a terminal's Ctrl-C, ``kill -INT``) is taken by whichever thread the
kernel picks, often a worker that is running when the main thread is asleep. CPython then only
records it: the Python handler (KeyboardInterrupt, tribunal's two-step handler) runs when the main
thread next executes Python code. A main thread blocked with no timeout on a future
(``Future.result()``, ``concurrent.futures.wait``) sleeps through it until the awaited work ends,
which for an LM call can be minutes. Waiting in short slices lets the handler run within one slice.
"""

from __future__ import annotations

from concurrent.futures import FIRST_COMPLETED, Future, wait
from typing import Any, Iterable

SLICE_SECONDS = 0.25


def result(future: Future) -> Any:
    """``future.result()``, waking every slice so that a pending Ctrl-C is raised here."""
    while not wait([future], timeout=SLICE_SECONDS).done:
        pass
    return future.result()


def first_completed(futures: Iterable[Future]) -> tuple[set[Future], set[Future]]:
    """``wait(futures, return_when=FIRST_COMPLETED)``, waking every slice (see :func:`result`)."""
    futures = set(futures)
    while True:
        done, pending = wait(futures, timeout=SLICE_SECONDS, return_when=FIRST_COMPLETED)
        if done:
            return done, pending

"""Ctrl-C on the command line: the first stops cleanly, a second stops at once.

The first SIGINT says so at once (``tribunal: stopping: ...`` on stderr) and raises KeyboardInterrupt
as usual: a runner stops starting items, lets the ones in flight finish into its journal, and ends with "interrupted: N items journaled; rerun the same
command to resume". Finishing those items can take a few LM timeouts; a second SIGINT does not
wait for them. That is safe because the journal is only ever appended whole, fsync'd lines and
every result file is written atomically: an immediate exit loses the items in flight, nothing else.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from typing import Iterator

from tribunal.errors import EXIT_INTERRUPTED
from tribunal.quiet import real_stderr

FIRST_INTERRUPT = ("tribunal: stopping: the work in flight finishes and is kept "
                   "(Ctrl-C again to stop at once)")
SECOND_INTERRUPT = ("tribunal: interrupted again: stopped at once; finished items are kept "
                    "(rerun the same command to resume)")


@contextlib.contextmanager
def second_interrupt_stops_at_once() -> Iterator[None]:
    """Install the two-step SIGINT handler for the enclosed command (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    seen = {"count": 0}

    def on_sigint(_signum: int, _frame: object) -> None:
        seen["count"] += 1
        if seen["count"] == 1:
            print(FIRST_INTERRUPT, file=real_stderr(), flush=True)  # at once: finishing may take a while
            raise KeyboardInterrupt
        print(SECOND_INTERRUPT, file=real_stderr(), flush=True)  # not the libraries' silenced stream
        os._exit(EXIT_INTERRUPTED)

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)

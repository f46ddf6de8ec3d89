"""tribunal's progress bars: labelled, with counts, elapsed time and ETA, on stderr.

One look for every command: ``judging M-MAD zh-en  ━━━━━━━━━━━━━━━  12/20  0:00:04  ETA 0:00:03``.
At a terminal the bars update in place and are cleared when the step ends (the summary says what
was done); piped, they are not drawn at all, so a log holds only results, notes and errors.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Callable, Iterator, Optional
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn
from rich.text import Text

from tribunal.cli.console import console as make_console

Report = Callable[[str, int, Optional[int]], None]
"""``report(label, done, total)``: a new label starts a new bar; ``total`` None while unknown."""


def _columns():
    class Eta(ProgressColumn):
        """``ETA 0:00:03`` while the total is known and the step runs; nothing otherwise."""

        def render(self, task) -> Text:
            remaining = task.time_remaining
            if task.total is None or task.finished or remaining is None:
                return Text("")
            minutes, secs = divmod(int(remaining), 60)
            return Text(f"ETA {minutes // 60}:{minutes % 60:02d}:{secs:02d}", style="progress.remaining")

    return (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), Eta())


@contextlib.contextmanager
def progress_bars() -> Iterator[Report]:
    """A ``report(label, done, total)`` function drawing one bar per label on stderr."""
    console = make_console(stderr=True, min_width=100)
    tasks: dict[str, int] = {}
    lock = threading.Lock()
    # The libraries' streams stay where tribunal.quiet put them: no redirection into the bar's console.
    with Progress(*_columns(), console=console, transient=True, disable=not console.is_terminal,
                  redirect_stdout=False, redirect_stderr=False) as bar:

        def report(label: str, done: int, total: Optional[int]) -> None:
            with lock:
                if label not in tasks:
                    tasks[label] = bar.add_task(label, total=total)
                bar.update(tasks[label], completed=done, total=total)

        yield report


"""The demo's steps, each on its own: a failed step is one line, and the demo goes on where it can.

:class:`DemoSteps` runs a step and catches what it raised at that boundary: the one-line message
the CLI would print for it (:func:`tribunal.cli.errors.describe`), or the exception's type and
message for anything else, whose traceback is appended to ``OUT/demo-errors.log`` so that nothing
is lost. Ctrl-C still stops the whole demo. :meth:`DemoSteps.finish` ends the demo with exit
status 2 when any step failed, after naming them.

Under a spending cap (``--max-cost``, ``--max-calls``: one cap shared by every LM step) an LM step runs
through :meth:`DemoSteps.run_lm`: once the cap has stopped, the remaining LM steps are skipped with a line
saying so, and :meth:`DemoSteps.finish` says what was spent and left and ends with exit status 5.
"""

from __future__ import annotations

import traceback
from pathlib import Path
from typing import Any, Callable

from rich.markup import escape

from tribunal.errors import EXIT_CAPPED, EXIT_ERROR, Interrupted
from tribunal.cli.cap_options import cap_lines
from tribunal.cli.console import console as make_console
from tribunal.cli.console import line
from tribunal.cli.errors import describe, one_line

ERROR_LOG = "demo-errors.log"


class DemoSteps:
    """Runs the demo's steps and remembers which failed or were skipped."""

    def __init__(self, console: Any, out: Path, cap: Any = None):
        self.console, self.out, self.cap = console, out, cap
        self.failed: list[str] = []
        self.skipped: list[str] = []
        self.capped: list[str] = []  # the LM steps the spending cap left out

    def run(self, name: str, action: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``action(*args, **kwargs)``; on failure one line on stderr and ``None`` (the next step goes on)."""
        try:
            return action(*args, **kwargs)
        except Interrupted:
            raise
        except Exception as err:  # noqa: BLE001 - a step boundary: any failure is one line, the demo goes on
            self.failed.append(name)
            self._say(f"[red]step failed[/red] {escape(name)}: {escape(self._message(err))}")
            return None

    def run_lm(self, name: str, action: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """As :meth:`run`, for a step that calls the LM: skipped (``None``) once the spending cap has stopped."""
        if self.cap is not None and self.cap.stopped_by:
            self.capped.append(name)
            self.skip(name, f"{self.cap.stopped_by} reached: no new LM step starts")
            return None
        return self.run(name, action, *args, **kwargs)

    def stopped(self) -> bool:
        """Whether the spending cap stopped an LM step."""
        return self.cap is not None and bool(self.cap.stopped_by)

    def skip(self, name: str, reason: str) -> None:
        """Say that ``name`` does not run, and why (a skipped step is not a failure)."""
        self.skipped.append(name)
        self._say(f"[yellow]step skipped[/yellow] {escape(name)}: {escape(reason)}")

    def finish(self) -> int:
        """The demo's exit status: 0; 2 after one line naming the failed steps; else 5 when the cap stopped."""
        if self.stopped():
            self._cap_lines()
        if not self.failed:
            return EXIT_CAPPED if self.stopped() else 0
        self._say(f"[red]{len(self.failed)} step(s) failed[/red]: {escape('; '.join(self.failed))} (exit status {EXIT_ERROR})")
        return EXIT_ERROR

    def _cap_lines(self) -> None:
        from tribunal.eval.mt.run_summary import cap_status  # heavy: pulls in pydantic

        left = (f"{len(self.capped)} LM step(s) skipped ({'; '.join(self.capped)})" if self.capped
                else "the step it stopped is cut short") + "; the calls in flight finished and are kept"
        self.console.print()
        for text in cap_lines(cap_status(self.cap, max(1, len(self.capped))), left):
            line(self.console, text)
        line(self.console, f"stopped by {self.cap.stopped_by} (exit status {EXIT_CAPPED})")

    def _message(self, err: BaseException) -> str:
        known = describe(err)
        if known is not None:
            return one_line(known[0])
        log = self.out / ERROR_LOG
        try:
            log.parent.mkdir(parents=True, exist_ok=True)
            with log.open("a", encoding="utf-8") as handle:
                handle.write("".join(traceback.format_exception(err)) + "\n")
            where = f" (traceback in {log})"
        except OSError as problem:
            where = f" (traceback not kept: {problem.strerror or problem})"
        return one_line(f"{type(err).__name__}: {err}") + where

    def _say(self, text: str) -> None:
        make_console(stderr=True).print(text, soft_wrap=True)

"""Rich consoles on tribunal's own streams, readable when output is piped.

stdout (:func:`console`) holds results: tables, summaries and machine-readable lines; stderr
(``console(stderr=True)``) holds progress, notes and warnings. Both write to the real streams even
while :mod:`tribunal.quiet` silences the libraries. :func:`line` prints a line that must survive
copy-paste and parsing (a signature, a path, a run id): never wrapped, no markup, no highlighting.
"""

from __future__ import annotations

from tribunal.quiet import real_stderr, real_stdout


def console(stderr: bool = False, min_width: int = 150):
    """A Rich console; off a terminal it is at least ``min_width`` columns wide."""
    from rich.console import Console  # startup: kept out of `tribunal --help`

    stream = real_stderr() if stderr else real_stdout()
    out = Console(file=stream)
    if not out.is_terminal and out.width < min_width:
        out = Console(file=stream, width=min_width)
    return out


def line(out, text: str) -> None:
    """``text`` as one physical line on ``out`` (a Rich console), whatever the width."""
    out.print(text, soft_wrap=True, markup=False, highlight=False, emoji=False)

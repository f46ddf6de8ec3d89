"""A summary rendered from ``summary.json`` read back must be the lines the command printed."""

from __future__ import annotations

import io
from typing import Any, Callable

from rich.console import Console


def assert_shown_as_rendered(output: str, render: Callable[[Any, Any], None], summary: Any, width: int = 150) -> None:
    """``render(console, summary)``'s lines stand, in order and unbroken, among the command's ``output``."""
    buffer = io.StringIO()
    render(Console(file=buffer, width=width), summary)
    rendered = buffer.getvalue().rstrip().splitlines()
    while rendered and not rendered[0].strip():  # leading blank lines; a centred title keeps its indent
        rendered.pop(0)
    shown = output.splitlines()
    start = shown.index(rendered[0])
    assert shown[start:start + len(rendered)] == rendered

"""Rich consoles that stay readable when output is piped (no 80-column squeeze)."""

from __future__ import annotations


def console(stderr: bool = False, min_width: int = 150):
    """A Rich console; off a terminal it is at least ``min_width`` columns wide."""
    from rich.console import Console

    out = Console(stderr=stderr)
    if not out.is_terminal and out.width < min_width:
        out = Console(stderr=stderr, width=min_width)
    return out

"""A human rating of one cell (a system's output of one segment): the MQM errors marked in it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ErrorSpan:
    """One annotated MQM error."""

    start: int
    end: int
    category: str
    severity: str
    score: float | None = None
    is_source_error: bool = False


Rating = tuple[ErrorSpan, ...] | None
"""The errors of one rated cell, or None where the cell is unrated."""

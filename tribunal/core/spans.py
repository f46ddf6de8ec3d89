"""An error span and the spans of one segment, as every span measure sees them.

Offsets are half-open character offsets ``[start, end)`` into the text of their ``side``: the
translation (``target``) or the source (``source``). Severities are lower-case strings
(``minor``, ``major``, ``critical``, ``neutral`` ... whatever the annotation uses); an empty
severity means "not given".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Side = Literal["target", "source"]
SIDES: tuple[Side, ...] = ("target", "source")


@dataclass(frozen=True)
class Span:
    """One error span."""

    start: int
    end: int
    severity: str = ""
    side: Side = "target"

    @property
    def length(self) -> int:
        return self.end - self.start

    def overlap(self, other: "Span") -> int:
        """Characters shared with ``other`` (0 on different sides)."""
        if self.side != other.side:
            return 0
        return max(0, min(self.end, other.end) - max(self.start, other.start))


def span(start: int, end: int, severity: str = "", side: Side = "target") -> Span:
    """A :class:`Span` with its severity lower-cased (readers go through here)."""
    return Span(int(start), int(end), str(severity or "").strip().lower(), side)


@dataclass(frozen=True)
class SegmentSpans:
    """The spans of one segment, with its texts when the file carries them (writers of marked formats need them)."""

    id: str
    spans: tuple[Span, ...]
    target: str | None = None
    source: str | None = None

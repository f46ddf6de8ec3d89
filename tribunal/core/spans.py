"""The one error span of tribunal: what a human rater marked, what a judge marked, what every span measure compares.

Offsets are half-open character offsets ``[start, end)`` into the text of their ``side``: the
translation (``target``) or the source (``source``). Severities are lower-case strings
(``minor``, ``major``, ``critical``, ``neutral`` ... whatever the annotation uses); an empty
severity means "not given". ``category`` is the MQM category when the annotation gives one, ``score``
a rater's own penalty for the error (WMT rating files; None: the WMT weights apply), ``text`` the span's
text as the judge quoted it (a located judge span). The measures read offsets, side and severity only.
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
    category: str = ""
    score: float | None = None
    text: str = ""

    @property
    def length(self) -> int:
        return self.end - self.start

    @property
    def is_source_error(self) -> bool:
        """True for an error marked in the source (the name rating files and judges' errors use)."""
        return self.side == "source"

    def overlap(self, other: "Span") -> int:
        """Characters shared with ``other`` (0 on different sides)."""
        if self.side != other.side:
            return 0
        return max(0, min(self.end, other.end) - max(self.start, other.start))


def side_of(is_source_error: object) -> Side:
    """The side of an error flagged (or not) ``is_source_error``."""
    return "source" if is_source_error else "target"


def span(start: int, end: int, severity: str = "", side: Side = "target", category: str = "", text: str = "") -> Span:
    """A :class:`Span` with its severity lower-cased (readers go through here)."""
    return Span(int(start), int(end), str(severity or "").strip().lower(), side, category, None, text)


@dataclass(frozen=True)
class SegmentSpans:
    """The spans of one segment, with its texts when the file carries them (writers of marked formats need them)."""

    id: str
    spans: tuple[Span, ...]
    target: str | None = None
    source: str | None = None

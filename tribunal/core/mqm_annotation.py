"""MQM annotations: one error a rater marked (:class:`MQMRow`), and every error one rater gave one segment."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MQMRow:
    """One annotation row with marks removed; offsets index the unmarked text."""

    system: str
    doc: str
    doc_id: str
    seg_id: int
    rater: str
    source: str
    target: str
    category: str
    severity: str | None
    """``minor`` / ``major`` / ``critical`` / ``neutral``; None for a No-error row."""
    start: int | None = None
    end: int | None = None
    is_source_error: bool = False
    comment: str = ""

    @property
    def span(self) -> str | None:
        if self.start is None:
            return None
        text = self.source if self.is_source_error else self.target
        return text[self.start:self.end]


@dataclass
class AnnotatedSegment:
    """Every row one rater gave one system's output of one segment."""

    system: str
    seg_id: int
    rater: str
    source: str
    target: str
    errors: list[MQMRow]

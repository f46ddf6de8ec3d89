"""LEGACY error-span precision, recall and F1 (tribunal's own measures before issue 30).

Kept because earlier tribunal figures report the pooled character F1; the measures the field reports
(micro MPP, the WMT25 character measure, EM, MP) are in :mod:`tribunal.eval.meta.spans`, and the span-level
figure below equals MP with many-to-many coverage there. See docs/reference/span-eval.md.

Matching (documented because papers differ):
- Only spans in the translation with ``end > start`` count. Source-side errors
  (``is_source_error``) and zero-length marks (e.g. omissions) have no characters of the
  translation to match and are left out on both sides.
- **Character level** (the primary figure, as in the WMT23 span-annotation comparisons): each cell
  contributes the set of translation characters covered by its predicted spans (P) and by its gold
  spans (G); precision = sum|P ∩ G| / sum|P|, recall = sum|P ∩ G| / sum|G| (micro-averaged over cells).
- **Span level** (partial match): a predicted span is correct if it shares at least one character
  with a gold span of the same cell; a gold span is found if some predicted span shares a character
  with it. Precision = correct / predicted spans, recall = found / gold spans.
F1 is the harmonic mean; a ratio with an empty denominator is NaN (nothing to measure), and
F1 is NaN when precision or recall is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Protocol, Sequence


class SpanLike(Protocol):
    start: int
    end: int


def _countable(spans: Sequence[SpanLike] | None) -> list[SpanLike]:
    return [s for s in spans or () if s.end > s.start and not getattr(s, "is_source_error", False)]


def _ratio(num: int, den: int) -> float:
    return num / den if den else math.nan


def _f1(p: float, r: float) -> float:
    if math.isnan(p) or math.isnan(r):
        return math.nan
    return 2 * p * r / (p + r) if p + r else 0.0


@dataclass
class SpanCounts:
    """Sufficient statistics; add them over cells, then read the ratios."""

    char_overlap: int = 0
    char_predicted: int = 0
    char_gold: int = 0
    spans_correct: int = 0
    spans_predicted: int = 0
    spans_found: int = 0
    spans_gold: int = 0
    cells: int = 0

    def __add__(self, other: "SpanCounts") -> "SpanCounts":
        return SpanCounts(*(a + b for a, b in zip(vars(self).values(), vars(other).values())))

    @property
    def char_precision(self) -> float:
        return _ratio(self.char_overlap, self.char_predicted)

    @property
    def char_recall(self) -> float:
        return _ratio(self.char_overlap, self.char_gold)

    @property
    def char_f1(self) -> float:
        return _f1(self.char_precision, self.char_recall)

    @property
    def span_precision(self) -> float:
        return _ratio(self.spans_correct, self.spans_predicted)

    @property
    def span_recall(self) -> float:
        return _ratio(self.spans_found, self.spans_gold)

    @property
    def span_f1(self) -> float:
        return _f1(self.span_precision, self.span_recall)

    def as_dict(self) -> dict[str, float]:
        names = ("char_precision", "char_recall", "char_f1", "span_precision", "span_recall", "span_f1")
        return {name: getattr(self, name) for name in names} | {"cells": self.cells}


def _overlaps(a: SpanLike, b: SpanLike) -> bool:
    return a.start < b.end and b.start < a.end


def cell_counts(predicted: Sequence[SpanLike] | None, gold: Sequence[SpanLike] | None) -> SpanCounts:
    """Counts for one rated cell (one system output of one segment)."""
    pred, ref = _countable(predicted), _countable(gold)
    pred_chars = {c for s in pred for c in range(s.start, s.end)}
    gold_chars = {c for s in ref for c in range(s.start, s.end)}
    return SpanCounts(
        char_overlap=len(pred_chars & gold_chars),
        char_predicted=len(pred_chars),
        char_gold=len(gold_chars),
        spans_correct=sum(any(_overlaps(p, g) for g in ref) for p in pred),
        spans_predicted=len(pred),
        spans_found=sum(any(_overlaps(g, p) for p in pred) for g in ref),
        spans_gold=len(ref),
        cells=1,
    )


def span_scores(cells: Iterable[tuple[Sequence[SpanLike] | None, Sequence[SpanLike] | None]]) -> SpanCounts:
    """Micro-averaged counts over ``(predicted spans, gold spans)`` of the rated cells.

    Pass only cells the human rated (a ``None`` rating means unrated: leave that cell out).
    """
    total = SpanCounts()
    for predicted, gold in cells:
        total = total + cell_counts(predicted, gold)
    return total

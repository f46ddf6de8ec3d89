"""tribunal's legacy span figures (before issue 30), derived from the span measures of this package.

Two figures earlier tribunal tables report, each one of the family's measures with many-to-many
coverage, micro averaging, target side and severities ignored:

- ``char_*`` (pooled character F1): the WMT25 character measure on the *character union* of each
  side's spans: each cell contributes the translation characters its predicted spans cover (P) and its
  gold spans cover (G), a character covered twice counting once; P = sum|P & G| / sum|P|,
  R = sum|P & G| / sum|G|;
- ``span_*`` (one shared character is a match): MP. A predicted span is correct if it shares a
  character with a gold span of its cell, a gold span found if a predicted span shares one with it.

Source-side errors and spans without characters (``end <= start``) are left out on both sides, as
every measure of the family does. Empty sides follow the family's convention
(:mod:`~tribunal.eval.meta.spans.scoring`): nothing predicted gives precision 1, nothing in the gold
recall 1, and F is 0 when P + R = 0. (Before issue 43 these figures were NaN there; wherever they were
defined they are unchanged, to the last digit.) No rated cell at all: NaN, nothing was measured.
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

from tribunal.core.spans import Span
from tribunal.eval.meta.spans.scoring import SegmentCounts, aggregate, segment_counts
from tribunal.eval.meta.spans.options import SpanOptions

CHARACTERS = SpanOptions(measure="wmt25", matching="many-to-many")
SPANS = SpanOptions(measure="mp", matching="many-to-many")
LEGACY_KEYS = ("char_precision", "char_recall", "char_f1", "span_precision", "span_recall", "span_f1")


def _unsevered(spans: Iterable[Span]) -> list[Span]:
    """The target-side spans with characters, severities dropped (the legacy figures ignore them)."""
    return [Span(s.start, s.end) for s in spans if s.side == "target" and s.end > s.start]


def character_union(spans: Iterable[Span]) -> list[Span]:
    """Target-side spans merged where they overlap or touch: the characters they cover, each once."""
    merged: list[Span] = []
    for s in sorted(_unsevered(spans), key=lambda s: (s.start, s.end)):
        if merged and s.start <= merged[-1].end:
            merged[-1] = Span(merged[-1].start, max(merged[-1].end, s.end))
        else:
            merged.append(s)
    return merged


def legacy_counts(predicted: Sequence[Span] | None, gold: Sequence[Span] | None) -> tuple[SegmentCounts, SegmentCounts]:
    """(character counts, span counts) of one rated cell."""
    pred, ref = predicted or (), gold or ()
    return (segment_counts(character_union(pred), character_union(ref), CHARACTERS),
            segment_counts(_unsevered(pred), _unsevered(ref), SPANS))


def legacy_scores(cells: Iterable[tuple[Sequence[Span] | None, Sequence[Span] | None]]) -> dict[str, float]:
    """The legacy P / R / F1 (:data:`LEGACY_KEYS`) over ``(predicted spans, gold spans)`` of the rated cells, with
    ``cells`` and the spans each side counts (``spans_predicted``, ``spans_gold``).

    Pass only cells the human rated (a ``None`` rating means unrated: leave that cell out). With no cell at all
    nothing was measured: the figures are NaN (not the empty-side 1)."""
    characters, spans = [], []
    for predicted, gold in cells:
        chars, marks = legacy_counts(predicted, gold)
        characters.append(chars)
        spans.append(marks)
    if not spans:
        return dict.fromkeys(LEGACY_KEYS, math.nan) | {"cells": 0.0, "spans_predicted": 0.0, "spans_gold": 0.0}
    c, s = aggregate(characters, CHARACTERS), aggregate(spans, SPANS)
    return {"char_precision": c.precision, "char_recall": c.recall, "char_f1": c.f,
            "span_precision": s.precision, "span_recall": s.recall, "span_f1": s.f, "cells": float(len(spans)),
            "spans_predicted": float(s.predicted_spans), "spans_gold": float(s.gold_spans)}

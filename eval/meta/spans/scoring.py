"""Span precision, recall and F of one segment, and their micro / macro averages over segments.

Per segment the sufficient statistics are four sums (:class:`SegmentCounts`): the credit earned by
the predicted spans (``tp_p``) and what they count for (``n_p``), the credit earned by the gold spans
(``tp_r``) and what they count for (``n_g``). Precision = tp_p / n_p, recall = tp_r / n_g.

- **micro** (the default; Perrella et al. 2026 recommend micro MPP): the four sums are added over
  segments first, then P, R and F = 2PR / (P + R) are read off the totals;
- **macro**: P, R and F are computed per segment and averaged with equal weight per segment; the
  macro F is the mean of the segments' F (their code's default, after Opitz & Burst 2019), not the
  harmonic mean of the macro P and R.

Sides: only spans of the chosen side(s) count (``target``, ``source``, ``both``); a predicted
span is only ever matched with a gold span of its own side. Spans with ``end <= start`` (an
omission marked at one point, or nothing) have no characters to compare and are left out on both
sides; :class:`SpanScore` counts them (``dropped_empty``).

Empty sides (the convention of Perrella et al.'s code, which we adopt): with nothing predicted
precision is 1 (nothing wrong was claimed); with nothing in the gold recall is 1 (nothing was
missed); F is 0 when P + R = 0. So a segment where neither side marks a span scores P = R = F = 1,
one where only the gold has spans scores P = 1, R = 0, F = 0, and only the prediction P = 0, R = 1, F = 0.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Iterable, Sequence

from tribunal.core.spans import Span
from tribunal.eval.meta.spans.coverage import em_matched, mp_credit, mpp_credits, wmt25_matched_characters
from tribunal.eval.meta.spans.matching import one_to_one_pairs
from tribunal.eval.meta.spans.measures import pair_credit, pair_mass, unit
from tribunal.eval.meta.spans.options import SpanOptions, check_severities


@dataclass(frozen=True)
class SegmentCounts:
    """One segment's sums (weighted credits and counts) and raw span numbers."""

    tp_p: float = 0.0
    n_p: float = 0.0
    tp_r: float = 0.0
    n_g: float = 0.0
    predicted: int = 0
    gold: int = 0
    dropped_empty: int = 0


def precision_recall_f(tp_p: float, n_p: float, tp_r: float, n_g: float) -> tuple[float, float, float]:
    """P, R, F under the empty-side convention (module docstring)."""
    p = tp_p / n_p if n_p > 0 else 1.0
    r = tp_r / n_g if n_g > 0 else 1.0
    return p, r, (2 * p * r / (p + r) if p + r > 0 else 0.0)


def countable(spans: Iterable[Span], side: str) -> tuple[list[Span], int]:
    """Spans of the chosen side with at least one character; and how many were empty."""
    chosen = [s for s in spans if side == "both" or s.side == side]
    kept = [s for s in chosen if s.end > s.start]
    return kept, len(chosen) - len(kept)


def many_to_many_credits(measure: str, pred: Sequence[Span], ref: Sequence[Span],
                         options: SpanOptions) -> tuple[float, float]:
    """(precision credit, recall credit) without pairs (:mod:`~tribunal.eval.meta.spans.coverage`)."""
    pen = options.severity_penalty
    if measure == "mpp":
        return mpp_credits(pred, ref, pen, options.weight, options.severity_weights is not None)
    if measure == "wmt25":
        matched = wmt25_matched_characters(pred, ref, pen)
        return matched, matched
    if measure == "em":
        matched = em_matched(pred, ref, pen)
        return matched, matched
    return sum(mp_credit(p, ref, pen) for p in pred), sum(mp_credit(g, pred, pen) for g in ref)


def one_to_one_credits(measure: str, pred: Sequence[Span], ref: Sequence[Span], options: SpanOptions,
                       n_p: float, n_g: float) -> tuple[float, float]:
    """(precision credit, recall credit) of the matched pairs (:mod:`~tribunal.eval.meta.spans.matching`)."""
    mass = pair_mass(options)
    tp_p = tp_r = 0.0
    for i, j in one_to_one_pairs(measure, options.assignment, pred, ref, mass, n_p, n_g):
        credit_p, credit_r = pair_credit(measure, pred[i], ref[j], mass(pred[i], ref[j]))
        tp_p += credit_p
        tp_r += credit_r
    return tp_p, tp_r


def segment_counts(predicted: Sequence[Span], gold: Sequence[Span], options: SpanOptions = SpanOptions()) -> SegmentCounts:
    """The four sums of one segment under ``options`` (ValueError if a span lacks a severity they need)."""
    pred, dropped_p = countable(predicted, options.side)
    ref, dropped_g = countable(gold, options.side)
    check_severities(pred, options, "a predicted ")
    check_severities(ref, options, "a gold ")
    m = options.measure
    n_p, n_g = sum(unit(m, p, options) for p in pred), sum(unit(m, g, options) for g in ref)
    if options.matching == "many-to-many":
        tp_p, tp_r = many_to_many_credits(m, pred, ref, options)
    else:
        tp_p, tp_r = one_to_one_credits(m, pred, ref, options, n_p, n_g)
    return SegmentCounts(tp_p=tp_p, n_p=n_p, tp_r=tp_r, n_g=n_g, predicted=len(pred), gold=len(ref),
                         dropped_empty=dropped_p + dropped_g)


@dataclass(frozen=True)
class SpanScore:
    """P / R / F over segments, the totals they come from and the settings' signature."""

    precision: float
    recall: float
    f: float
    segments: int
    predicted_spans: int
    gold_spans: int
    tp_p: float
    n_p: float
    tp_r: float
    n_g: float
    dropped_empty: int
    signature: str

    def as_dict(self) -> dict:
        return asdict(self)


def aggregate(counts: Sequence[SegmentCounts], options: SpanOptions = SpanOptions()) -> SpanScore:
    """Micro or macro average of per-segment counts (no segment: P = R = 1 by the empty convention, F = 1)."""
    tot = [sum(getattr(c, k) for c in counts) for k in ("tp_p", "n_p", "tp_r", "n_g")]
    if options.averaging == "micro" or not counts:
        p, r, f = precision_recall_f(*tot)
    else:
        per = [precision_recall_f(c.tp_p, c.n_p, c.tp_r, c.n_g) for c in counts]
        p, r, f = (sum(x[k] for x in per) / len(per) for k in range(3))
    return SpanScore(p, r, f, len(counts), sum(c.predicted for c in counts), sum(c.gold for c in counts),
                     *tot, sum(c.dropped_empty for c in counts), options.signature())


def score_segments(pairs: Iterable[tuple[Sequence[Span], Sequence[Span]]], options: SpanOptions = SpanOptions()) -> SpanScore:
    """Score ``(predicted spans, gold spans)`` of each segment."""
    return aggregate([segment_counts(p, g, options) for p, g in pairs], options)


def paired_segments(predicted: dict[str, Sequence[Span]], gold: dict[str, Sequence[Span]]) -> list[str]:
    """Ids scored: those in both files (a gold id the prediction lacks was not judged; a predicted id the
    gold lacks was not rated), in the gold's order."""
    return [i for i in gold if i in predicted]

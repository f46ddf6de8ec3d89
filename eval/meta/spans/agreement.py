"""The raters' own span agreement (the human ceiling), by the same measure a judge is scored with.

Rater ``i`` is scored as if it were a judge against every other rater ``j`` on the segments both
rated; its counts over all ``(segment, j)`` pairs are pooled (micro) or their per-pair values
averaged (macro), giving "rater i vs the others". The ceiling is the mean over raters of that F. A
judge is scored the same way against every rater (:func:`vs_raters`) on the segments it judged, so
its figure sits beside the raters' on equal terms (as ``mt agreement`` does for scores).
"""

from __future__ import annotations

from typing import Mapping, Sequence

from tribunal.core.spans import Span
from tribunal.eval.meta.spans.options import SpanOptions
from tribunal.eval.meta.spans.scoring import SegmentCounts, SpanScore, aggregate, segment_counts

Annotations = Mapping[str, Sequence[Span]]
"""Segment id -> spans."""


def pair_counts(candidate: Annotations, raters: Mapping[str, Annotations], options: SpanOptions,
                skip: str | None = None) -> list[SegmentCounts]:
    """Counts of ``candidate`` against each rater (but ``skip``) on the segments both have."""
    return [segment_counts(candidate[i], gold[i], options)
            for name, gold in raters.items() if name != skip for i in gold if i in candidate]


def vs_raters(candidate: Annotations, raters: Mapping[str, Annotations], options: SpanOptions = SpanOptions(),
              skip: str | None = None) -> SpanScore:
    """A judge (or rater ``skip``) against every (other) rater, pooled over (segment, rater) pairs."""
    return aggregate(pair_counts(candidate, raters, options, skip), options)


def rater_ceiling(raters: Mapping[str, Annotations], options: SpanOptions = SpanOptions()) -> dict[str, SpanScore]:
    """Each rater against the others, plus ``mean`` (a SpanScore whose P, R, F are the raters' means)."""
    table = {name: vs_raters(spans, raters, options, skip=name) for name, spans in raters.items()}
    if table:
        n = len(table)
        first = next(iter(table.values()))
        table["mean"] = SpanScore(sum(s.precision for s in table.values()) / n,
                                  sum(s.recall for s in table.values()) / n, sum(s.f for s in table.values()) / n,
                                  sum(s.segments for s in table.values()), sum(s.predicted_spans for s in table.values()),
                                  sum(s.gold_spans for s in table.values()), 0.0, 0.0, 0.0, 0.0,
                                  sum(s.dropped_empty for s in table.values()), first.signature)
    return table

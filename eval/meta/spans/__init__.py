"""Span-level meta-evaluation of MT error detection (EM, MP, MPP, WMT25 character counts).

See :mod:`.measures` for the definitions and their sources, :mod:`.scoring` for averaging and the
empty-side convention, :mod:`.significance` for paired tests and clusters, :mod:`.agreement` for
the raters' own ceiling. ``eval/meta/span_f1.py`` keeps the legacy pooled character F1.
"""

from tribunal.eval.meta.spans.options import SpanOptions, parse_weights
from tribunal.eval.meta.spans.scoring import (SegmentCounts, SpanScore, aggregate, precision_recall_f, score_segments,
                                              segment_counts)

__all__ = ["SpanOptions", "parse_weights", "SegmentCounts", "SpanScore", "aggregate", "precision_recall_f", "score_segments",
           "segment_counts"]

"""Span-level meta-evaluation of MT error detection (EM, MP, MPP, WMT25 character counts).

See :mod:`.measures` for the definitions and their sources, :mod:`.scoring` for averaging and the
empty-side convention, :mod:`.significance` for paired tests and clusters, :mod:`.agreement` for
the raters' own ceiling, :mod:`.legacy` for tribunal's legacy figures (pooled character F1, partial-match span F1)
derived from the same measures.
"""

from tribunal.eval.meta.spans.options import SpanOptions, parse_weights
from tribunal.eval.meta.spans.scoring import (SegmentCounts, SpanScore, aggregate, precision_recall_f, score_segments,
                                              segment_counts)

__all__ = ["SpanOptions", "parse_weights", "SegmentCounts", "SpanScore", "aggregate", "precision_recall_f", "score_segments",
           "segment_counts"]

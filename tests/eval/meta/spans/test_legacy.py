"""The legacy span-level F1 of ``span_f1.py`` is MP with many-to-many coverage, as its docstring now says."""

import math
import random

import pytest

from tribunal.eval.meta.span_f1 import span_scores
from tribunal.core.spans import span
from tribunal.eval.meta.spans import SpanOptions, score_segments


def test_legacy_span_level_equals_many_to_many_mp():
    rng = random.Random(30)
    for _ in range(50):
        segments = []
        for _ in range(5):
            starts = [[rng.randrange(0, 30) for _ in range(rng.randrange(0, 4))] for _ in range(2)]
            segments.append(tuple([span(a, a + rng.randrange(1, 9)) for a in side] for side in starts))
        legacy = span_scores(segments)
        new = score_segments(segments, SpanOptions(measure="mp", matching="many-to-many"))
        if not math.isnan(legacy.span_precision):
            assert new.precision == pytest.approx(legacy.span_precision, abs=1e-12)
        if not math.isnan(legacy.span_recall):
            assert new.recall == pytest.approx(legacy.span_recall, abs=1e-12)

"""Optimal assignment against greedy on a constructed case, computed by hand."""

import pytest

from tribunal.core.spans import span
from tribunal.eval.meta.spans import SpanOptions, score_segments
from tribunal.eval.meta.spans.matching import greedy_pairs, optimal_pairs
import numpy as np


# predicted A = [0,2), B = [0,12); gold X = [0,3). Shared characters: A-X 2, B-X 3.
# greedy ranks every measure's pairs by Dice overlap (as the authors' code does): A-X 2*2/5 = 0.8 beats
# B-X 2*3/15 = 0.4, so greedy takes A-X: 2 characters. optimal (wmt25: most shared characters) takes B-X: 3.
PRED = [span(0, 2), span(0, 12)]
GOLD = [span(0, 3)]


def test_optimal_matching_beats_greedy_on_characters():
    optimal = score_segments([(PRED, GOLD)], SpanOptions(measure="wmt25"))
    greedy = score_segments([(PRED, GOLD)], SpanOptions(measure="wmt25", assignment="greedy"))
    assert (optimal.precision, optimal.recall) == pytest.approx((3 / 14, 3 / 3))
    assert (greedy.precision, greedy.recall) == pytest.approx((2 / 14, 2 / 3))
    assert optimal.f > greedy.f


def test_greedy_ranks_by_dice_even_for_exact_match():
    # predicted [0,4) minor; gold [0,4) major and [0,5) minor. With penalty 0.9 the identical pair ranks
    # 1 * 0.1 and the overlapping one 2*4/9 * 1 = 0.89: greedy pairs the non-identical spans and EM earns 0.
    pred, gold = [span(0, 4, "minor")], [span(0, 4, "major"), span(0, 5, "minor")]
    greedy = score_segments([(pred, gold)], SpanOptions(measure="em", assignment="greedy", severity_penalty=0.9))
    optimal = score_segments([(pred, gold)], SpanOptions(measure="em", severity_penalty=0.9))
    assert greedy.precision == 0.0 and optimal.precision == pytest.approx(0.1)


def test_pairs_of_each_search():
    m = np.array([[8.0, 2.0], [7.0, 0.0]])
    assert sorted(optimal_pairs(m)) == [(0, 1), (1, 0)]
    assert greedy_pairs(m) == [(0, 0)]
    assert optimal_pairs(np.zeros((2, 0))) == [] and greedy_pairs(np.zeros((0, 3))) == []



def test_optimal_pairs_are_the_pairs_scipy_would_keep():
    """Random sparse matrices: the positive pairs of scipy's assignment, exactly (assignment.py replaces it)."""
    from scipy.optimize import linear_sum_assignment

    rng = np.random.default_rng(7)
    for _ in range(500):
        n, k = rng.integers(1, 6, size=2)
        m = np.where(rng.random((n, k)) < 0.25, rng.random((n, k)), 0.0)
        rows, cols = linear_sum_assignment(m, maximize=True)
        assert optimal_pairs(m) == [(int(i), int(j)) for i, j in zip(rows, cols) if m[i, j] > 0]

"""Optimal assignment against greedy on a constructed case, computed by hand."""

import pytest

from tribunal.core.spans import span
from tribunal.eval.meta.spans import SpanOptions, score_segments
from tribunal.eval.meta.spans.matching import greedy_pairs, optimal_pairs
import numpy as np


# predicted A = [0,10), B = [2,9); gold X = [2,10), Y = [0,2).
# shared characters: A-X 8, A-Y 2, B-X 7, B-Y 0.
# greedy takes A-X (8) first; B is then left with Y (0): 8 characters.
# optimal takes A-Y + B-X = 2 + 7 = 9 characters.
PRED = [span(0, 10), span(2, 9)]
GOLD = [span(2, 10), span(0, 2)]


def test_optimal_matching_beats_greedy_on_characters():
    optimal = score_segments([(PRED, GOLD)], SpanOptions(measure="wmt25"))
    greedy = score_segments([(PRED, GOLD)], SpanOptions(measure="wmt25", assignment="greedy"))
    assert (optimal.precision, optimal.recall) == pytest.approx((9 / 17, 9 / 10))
    assert (greedy.precision, greedy.recall) == pytest.approx((8 / 17, 8 / 10))
    assert optimal.f > greedy.f


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

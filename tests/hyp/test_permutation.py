"""Exact split permutation test, checked against hand-computed cases."""

import math

import numpy as np
import pytest

from tribunal.eval.hyp.divergence import extra_divergence
from tribunal.eval.hyp.permutation import balanced_splits, exact_split_test


def _matrix(entries, n):
    m = np.zeros((n, n))
    for (i, j), v in entries.items():
        m[i, j] = m[j, i] = v
    return m


# 4 runs, 3 splits. By hand:
#   {0,1}|{2,3}: cross (.5+.6+.7+.4)/4 = .55,  within (.1+.3)/2 = .20 -> extra  .35
#   {0,2}|{1,3}: cross (.1+.6+.7+.3)/4 = .425, within (.5+.4)/2 = .45 -> extra -.025
#   {0,3}|{1,2}: cross (.1+.5+.4+.3)/4 = .325, within (.6+.7)/2 = .65 -> extra -.325
HAND = _matrix({(0, 1): .1, (2, 3): .3, (0, 2): .5, (0, 3): .6, (1, 2): .7, (1, 3): .4}, 4)


def test_hand_computed_four_run_case():
    result = exact_split_test(HAND, [0, 1], [2, 3], extra_divergence)
    assert result.splits == 3
    assert result.observed == pytest.approx(0.35)
    assert sorted(result.null) == pytest.approx([-0.325, -0.025, 0.35])
    assert result.p_value == pytest.approx(1 / 3)


def test_hand_computed_middle_split_counts_ties_and_larger():
    result = exact_split_test(HAND, [0, 2], [1, 3], extra_divergence)
    assert result.observed == pytest.approx(-0.025)
    assert result.p_value == pytest.approx(2 / 3)


def test_ten_runs_have_126_splits_and_perfect_separation_gives_p_1_over_126():
    assert len(balanced_splits(10)) == 126 == math.comb(10, 5) // 2
    groups = [0] * 5 + [1] * 5
    matrix = np.array([[0.0 if i == j else float(groups[i] != groups[j]) for j in range(10)] for i in range(10)])
    result = exact_split_test(matrix, range(5), range(5, 10), extra_divergence)
    assert result.observed == pytest.approx(1.0)
    assert result.p_value == pytest.approx(1 / 126)


def test_no_structure_gives_p_one():
    matrix = np.full((10, 10), 0.4)
    np.fill_diagonal(matrix, 0)
    result = exact_split_test(matrix, range(5), range(5, 10), extra_divergence)
    assert result.observed == pytest.approx(0.0)
    assert result.p_value == 1.0


def test_splits_are_unlabelled_and_cover_every_item():
    splits = balanced_splits(6)
    assert len(splits) == 10
    assert all(sorted(a + b) == list(range(6)) and 0 in a for a, b in splits)
    assert len({frozenset(a) for a, _ in splits}) == 10


def test_unequal_groups_or_odd_counts_are_refused():
    with pytest.raises(ValueError):
        balanced_splits(5)
    with pytest.raises(ValueError):
        exact_split_test(HAND, [0], [1, 2], extra_divergence)

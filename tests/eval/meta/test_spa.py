"""SPA (soft pairwise accuracy): the shared sign matrix, a hand-checkable case and exact ties."""

import math
from fractions import Fraction

import numpy as np
import pytest

from tribunal.eval.meta.spa import (
    decimal_grid,
    flip_matrix,
    pairwise_p_values,
    pairwise_p_values_many,
    soft_pairwise_accuracy,
    spa,
)


def test_sign_matrix_is_mt_metrics_evals():
    uniform = np.random.default_rng(4).random(size=(1000, 7), dtype=np.float32)
    signs = np.rint(uniform) * 2 - 1
    flips = flip_matrix(7)
    assert flips.shape == (1000, 7)
    assert np.array_equal(flips, (signs == -1).astype(float))
    assert not flips.flags.writeable


def test_three_systems_five_segments_by_hand():
    """Each p-value reduces to a share of sign-matrix rows that can be counted by hand.

    Gold (MQM-like): A = 0 everywhere, B loses 1 on segment 0, C loses 1 on segment 0 and 5 on
    segment 1. A permutation flips a set F of segments; i is judged >= j when the sum of i over F
    is <= the sum of j over F. So p_AB(gold) = P(0 not in F), p_AC = P(0, 1 not in F),
    p_BC = P(1 not in F). The metric orders A > B only through segment 0 (p_AB = P(0 not in F))
    and ranks C above A and B on every flipped set (p_AC = p_BC = 1).
    """
    gold = np.array([[0, -1, -1], [0, 0, -5], [0, 0, 0], [0, 0, 0], [0, 0, 0]], float)
    metric = np.array([[.9, .8, .9], [.8, .8, .9], [.7, .7, .7], [.6, .6, .6], [.5, .5, .5]])
    flips = flip_matrix(5)
    keep0 = (flips[:, 0] == 0).mean()  # rows that do not flip segment 0
    keep1 = (flips[:, 1] == 0).mean()
    keep01 = ((flips[:, 0] == 0) & (flips[:, 1] == 0)).mean()
    assert (keep0, keep1, keep01) == (0.509, 0.494, 0.241)  # counted from default_rng(4)'s matrix
    p_gold, p_metric = pairwise_p_values(gold), pairwise_p_values(metric)
    assert (p_gold[0, 1], p_gold[0, 2], p_gold[1, 2]) == (keep0, keep01, keep1)
    assert (p_metric[0, 1], p_metric[0, 2], p_metric[1, 2]) == (keep0, 1.0, 1.0)
    expected = 1 - (abs(keep0 - keep0) + abs(keep01 - 1) + abs(keep1 - 1)) / 3  # = 0.578333...
    assert spa(gold, metric) == pytest.approx(expected, abs=1e-15)
    assert expected == pytest.approx(0.5783333333333334)


def test_decimal_ties_are_exact():
    """MQM files hold float noise (-5.199999999999999 for -5.2): decimal-equal sums tie and count."""
    scores = np.array([[-5.199999999999999, -5.2], [0.0, 0.0]])
    assert np.array_equal(decimal_grid(scores), [[-52, -52], [0, 0]])
    assert pairwise_p_values(scores)[0, 1] == 1.0  # every permutation ties: counted as >=
    flips = flip_matrix(2)
    float_sums = flips @ scores
    assert (float_sums[:, 0] <= float_sums[:, 1]).mean() < 1.0  # plain float sums would miss the tie


def test_off_grid_ties_are_decided_exactly_on_the_float_values():
    """0.30000000000000004 vs 0.1 + 0.2: equal as float sums, not as exact sums of the floats."""
    x = np.array([[0.30000000000000004, 0.1], [0.0, 0.2], [math.pi, math.pi]])
    assert decimal_grid(x) is None
    flips = flip_matrix(3)
    exact = np.mean([sum(map(Fraction, x[r > 0, 0])) <= sum(map(Fraction, x[r > 0, 1])) for r in flips])
    naive = ((flips @ x)[:, 0] <= (flips @ x)[:, 1]).mean()
    assert pairwise_p_values(x)[0, 1] == exact == (flips[:, 0] == 0).mean()
    assert naive != exact


def test_spa_is_one_for_the_gold_itself_and_invariant_to_positive_affine_maps():
    rng = np.random.default_rng(0)
    gold = np.round(rng.normal(size=(40, 6)), 1)
    metric = gold + rng.normal(scale=0.5, size=gold.shape)
    assert spa(gold, gold) == 1.0
    assert spa(gold, 3 * gold - 7) == 1.0
    assert spa(gold, metric) < 1.0
    assert math.isnan(soft_pairwise_accuracy(np.zeros((1, 1)), np.zeros((1, 1))))  # one system: no pair


def test_missing_scores_are_refused():
    with pytest.raises(ValueError, match="without NaN"):
        pairwise_p_values(np.array([[1.0, np.nan], [0.0, 1.0]]))


def test_many_metrics_at_once_equal_each_metric_alone_with_their_exact_ties():
    """One matrix product for all metrics of a pair; each keeps its own grid (or exact re-decision)."""
    off_grid = np.array([[0.30000000000000004, 0.1, 0.5], [0.0, 0.2, 0.5], [math.pi, math.pi, 1.0]])
    mqm_like = np.array([[-5.199999999999999, -5.2, 0.0], [0.0, 0.0, -1.0], [-0.1, -0.1, -0.1]])
    rng = np.random.default_rng(1)
    noisy = rng.normal(size=(3, 3))
    stacked = np.stack([off_grid, mqm_like, noisy, off_grid * 3])
    together = pairwise_p_values_many(stacked)
    assert together.shape == (4, 3, 3)
    for k, scores in enumerate(stacked):
        assert np.array_equal(together[k], pairwise_p_values(scores)), k
    assert together[0, 0, 1] == (flip_matrix(3)[:, 0] == 0).mean()  # the exact off-grid tie of the test above
    assert together[1, 0, 1] == 1.0  # the decimal tie
    with pytest.raises(ValueError, match="without NaN"):
        pairwise_p_values_many(np.array([[[1.0, np.nan], [0.0, 1.0]]]))

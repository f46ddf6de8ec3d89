import numpy as np
import pytest

from tribunal.eval.meta.significance import (
    bootstrap_interval,
    mean_statistic,
    pearson_statistic,
    permutation_test,
    rowwise_pearson,
)


def test_exact_permutation_hand_computed():
    # per-unit differences d = a - b = (1, 1, 0); observed delta = 2/3.
    # Swapping flips the sign of d_i: the null deltas over the 8 patterns are
    # {2/3, 0, 0, -2/3} twice, so P(null >= 2/3) = 2/8.
    a, b = np.array([1.0, 1.0, 1.0]), np.array([0.0, 0.0, 1.0])
    result = permutation_test(a, b, mean_statistic(), exact=True)
    assert result.delta == pytest.approx(2 / 3)
    assert result.samples == 8
    assert result.p_value == pytest.approx(0.25)


def test_sampled_permutation_is_seeded_and_close_to_exact():
    a, b = np.array([1.0, 1.0, 1.0]), np.array([0.0, 0.0, 1.0])
    first = permutation_test(a, b, mean_statistic(), samples=4000, seed=7)
    again = permutation_test(a, b, mean_statistic(), samples=4000, seed=7)
    assert first.p_value == again.p_value
    assert first.p_value == pytest.approx(0.25, abs=0.03)


def test_negative_delta_is_one_sided_the_other_way():
    result = permutation_test(np.array([0.0, 0.0]), np.array([1.0, 1.0]), mean_statistic(), exact=True)
    assert result.delta == -1.0 and result.p_value == pytest.approx(0.25)


def test_identical_metrics_are_not_significant():
    x = np.random.default_rng(1).normal(size=50)
    gold = x + np.random.default_rng(2).normal(size=50)
    result = permutation_test(x, x, pearson_statistic(gold), samples=200)
    assert result.delta == 0.0 and result.p_value == 1.0


def test_pearson_statistic_and_rowwise_pearson():
    gold = np.array([1.0, 2.0, 3.0, 5.0])
    values = np.array([[2.0, 4.0, 6.0, 10.0], [4.0, 3.0, 2.0, 1.0]])
    assert pearson_statistic(gold)(values) == pytest.approx([1.0, np.corrcoef(gold, values[1])[0, 1]])
    assert rowwise_pearson(np.tile(gold, (2, 1)), values) == pytest.approx(pearson_statistic(gold)(values))


def test_bootstrap_interval_covers_the_difference():
    a = np.r_[np.ones(80), np.zeros(20)]
    b = np.r_[np.ones(60), np.zeros(40)]
    low, high = bootstrap_interval(100, lambda rows: a[rows].mean(-1) - b[rows].mean(-1), samples=500, seed=3)
    assert low < 0.2 < high and low > 0


def test_mismatched_inputs_rejected():
    with pytest.raises(ValueError):
        permutation_test(np.ones(3), np.ones(4), mean_statistic())

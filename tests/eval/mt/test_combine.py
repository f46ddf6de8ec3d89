"""The rules that combine an item's K sampled scores, on cases worked by hand."""

from __future__ import annotations

import pytest

from tribunal.eval.mt.combine import combine, nearest, outliers_removed, reciprocal_rank_weighted, spread

SCORES = [-1.0, -2.0, -2.0, -3.0, -25.0, -1.0]


def test_mean_and_median():
    assert combine(SCORES, "mean").value == pytest.approx(-34 / 6)
    assert combine(SCORES, "median").value == -2.0  # the two middle scores of -25 -3 -2 -2 -1 -1
    assert combine([-5.0, -1.0, 0.0], "median").value == -1.0
    assert combine(SCORES, "mean").kept == combine(SCORES, "median").kept == tuple(range(6))


def test_trimmed_is_gemba_v2s_rule_worked_by_hand():
    # mean -5.6667, population deviation 8.6731: -25 is 19.333 away, beyond 2 x 8.6731 = 17.346
    result = combine(SCORES, "trimmed")
    assert result.kept == (0, 1, 2, 3, 5)
    # kept, best first: -1 -1 -2 -2 -3 weighing 1, 1/2, 1/3, 1/4, 1/5
    weighted = -1 - 1 / 2 - 2 / 3 - 2 / 4 - 3 / 5
    assert weighted == pytest.approx(-3.2666666666666666)
    assert result.value == pytest.approx(weighted / (1 + 1 / 2 + 1 / 3 + 1 / 4 + 1 / 5)) == pytest.approx(-1.4306569)


def test_outliers_need_enough_samples_and_spread():
    assert outliers_removed([0.0, 0.0, 0.0, -25.0]) == (0, 1, 2, 3)  # 4 samples: at most 1.5 deviations away
    assert outliers_removed([0.0] * 5 + [-25.0]) == (0, 1, 2, 3, 4)  # 6 samples: 2.04 deviations: removed
    assert outliers_removed([-3.0, -3.0, -3.0]) == (0, 1, 2)  # no spread: nothing removed
    assert combine([-3.0, -3.0], "trimmed").value == -3.0


def test_reciprocal_rank_weights_favour_the_best_score():
    assert reciprocal_rank_weighted([-10.0, 0.0]) == pytest.approx((0.0 - 10.0 / 2) / 1.5)
    assert reciprocal_rank_weighted([50.0, 100.0, 80.0]) == pytest.approx((100 + 80 / 2 + 50 / 3) / (1 + 1 / 2 + 1 / 3))


def test_spread_and_the_sample_whose_spans_are_kept():
    assert spread(SCORES) == {"std": pytest.approx(8.67307455417179), "min": -25.0, "max": -1.0}
    assert nearest(SCORES, -1.4307, (0, 1, 2, 3, 5)) == 0  # -1 is nearer than -2; the first of the two -1s
    assert nearest(SCORES, -2.0, range(6)) == 1
    assert nearest(SCORES, -20.0, (0, 1)) == 1  # only among the kept samples
    with pytest.raises(ValueError):
        combine([], "mean")

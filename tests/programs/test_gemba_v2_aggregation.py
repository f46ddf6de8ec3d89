"""GEMBA-MQM V2's aggregation (2-sigma outliers out, then RRWA best first) on small lists worked by hand."""

from __future__ import annotations

import pytest

from tribunal.eval.mt.combine import combine
from tribunal.programs.mqm.gemba_v2_aggregation import (gemba_v2_aggregate, kept_within_two_sigma,
                                                        reciprocal_rank_weighted_average)


def test_rrwa_ranks_the_best_score_first():
    # -1 (rank 1, weight 1), -4 (rank 2, weight 1/2): (-1 - 2) / 1.5 = -2
    assert reciprocal_rank_weighted_average([-4.0, -1.0]) == pytest.approx(-2.0)
    # 90, 60, 30: (90 + 30 + 10) / (1 + 1/2 + 1/3) = 130 / 1.8333 = 70.909
    assert reciprocal_rank_weighted_average([30.0, 90.0, 60.0]) == pytest.approx(130 / (11 / 6))


def test_rrwa_ties_take_consecutive_ranks():
    # -2, -2, -5 ranked 1, 2, 3: (-2 - 1 - 5/3) / (11/6) = -4.6667 / 1.8333 = -2.5455, in any input order
    expected = (-2 - 2 / 2 - 5 / 3) / (1 + 1 / 2 + 1 / 3)
    assert expected == pytest.approx(-2.5454545)
    for order in ([-2.0, -2.0, -5.0], [-5.0, -2.0, -2.0], [-2.0, -5.0, -2.0]):
        assert reciprocal_rank_weighted_average(order) == pytest.approx(expected)


def test_all_equal_scores_lose_nothing_and_keep_their_value():
    assert kept_within_two_sigma([-6.0] * 10) == tuple(range(10))  # sigma 0: nothing is an outlier
    assert gemba_v2_aggregate([-6.0] * 10) == (pytest.approx(-6.0), tuple(range(10)))
    assert gemba_v2_aggregate([0.0]) == (0.0, (0,))


def test_one_outlier_of_ten_is_removed():
    # nine 0s and one -10: mean -1, population sigma 3; -10 lies 9 > 6 from the mean; a 0 lies 1
    scores = [0.0] * 9 + [-10.0]
    value, kept = gemba_v2_aggregate(scores)
    assert kept == tuple(range(9)) and value == 0.0


def test_a_score_at_exactly_two_sigma_stays():
    # 0, 0, 0, 0, -5 (K=5): mean -1, sigma 2; -5 lies 4 = 2 sigma from the mean: kept (only beyond is removed)
    assert kept_within_two_sigma([0.0, 0.0, 0.0, 0.0, -5.0]) == (0, 1, 2, 3, 4)


def test_small_k_cannot_lose_a_score():
    # with ddof 0 a score lies at most (K-1)/sqrt(K) sigma from the mean: K=4 -> 1.5, never beyond 2
    assert kept_within_two_sigma([0.0, 0.0, 0.0, -25.0]) == (0, 1, 2, 3)


def test_the_ten_scores_a_third_party_quotes_from_the_papers_appendix():
    # Not from the paper (unread here): a third party's test quotes it as the appendix's example, result -8.50.
    scores = [-50.0, -11.0, -6.0, -6.0, -11.0, -6.0, -6.0, -55.0, -6.0, -11.0]
    # mean -16.8, sigma 18.0155, 2 sigma 36.03: -55 lies 38.2 away (removed), -50 lies 33.2 (kept)
    value, kept = gemba_v2_aggregate(scores)
    assert kept == (0, 1, 2, 3, 4, 5, 6, 8, 9)
    # kept best first: five -6 (ranks 1-5), three -11 (6-8), -50 (9)
    by_hand = (-6 * (1 + 1 / 2 + 1 / 3 + 1 / 4 + 1 / 5) - 11 * (1 / 6 + 1 / 7 + 1 / 8) - 50 / 9) / sum(
        1 / r for r in range(1, 10))
    assert value == pytest.approx(by_hand) == pytest.approx(-8.4961425)
    assert value == pytest.approx(-8.50, abs=0.01)


def test_gemba_v2_is_a_combine_rule_equal_to_trimmed_today():
    scores = [-1.0, -2.0, -2.0, -3.0, -25.0, -1.0]
    published, ours = combine(scores, "gemba-v2"), combine(scores, "trimmed")
    assert published.kept == ours.kept == (0, 1, 2, 3, 5)
    assert published.value == pytest.approx(ours.value) == pytest.approx(-1.4306569)
    with pytest.raises(ValueError):
        gemba_v2_aggregate([])

"""The agreement statistics: a case worked by hand, and equality with the reference packages
(``krippendorff``, scikit-learn, scipy) on random data, with missing values and bootstrap weights."""

from __future__ import annotations

import numpy as np
import pytest

from tribunal.eval.meta import agreement_stats as stats
from tribunal.eval.meta.human_ceiling import band_codes

# Two raters, four items (MQM scores).
A = np.array([0.0, -2.0, -6.0, -4.0])
B = np.array([0.0, -5.0, -6.0, -1.0])
ONES = np.ones(4)


def test_pearson_and_kendall_by_hand():
    # Both means are -3: deviations A (3, 1, -3, -1), B (3, -2, -3, 2).
    # sum dA*dB = 9 - 2 + 9 - 2 = 14; sum dA^2 = 20; sum dB^2 = 26; r = 14 / sqrt(520) = 0.613941...
    assert stats.pearson(A, B, ONES)[0] == pytest.approx(14 / np.sqrt(520), abs=1e-12)
    # The six pairs: (1,2) (1,3) (1,4) (2,3) (3,4) concordant, (2,4) discordant (A: -2 > -4, B: -5 < -1);
    # no ties: tau-b = (5 - 1) / 6.
    assert stats.kendall_tau_b(A, B, ONES)[0] == pytest.approx(4 / 6, abs=1e-12)


def test_weighted_kappa_by_hand():
    # Bands (none 0, minor 1, major 2): A = (0, 1, 2, 1), B = (0, 2, 2, 1).
    a, b = band_codes(A), band_codes(B)
    assert a.tolist() == [0, 1, 2, 1] and b.tolist() == [0, 2, 2, 1]
    # Observed proportions: (0,0), (1,2), (2,2), (1,1) a quarter each; only (1,2) disagrees, by 1.
    # Marginals: A (1/4, 1/2, 1/4), B (1/4, 1/4, 1/2). Expected disagreement, quadratic weights (i-j)^2:
    #   row 0: 1/4 * (1*1/4 + 4*1/2) = 0.5625; row 1: 1/2 * (1*1/4 + 1*1/2) = 0.375; row 2: 1/4 * (4*1/4 + 1*1/4) = 0.3125
    #   sum 1.25; observed 1/4 * 1 = 0.25; kappa = 1 - 0.25 / 1.25 = 0.8.
    assert stats.weighted_kappa(a, b, ONES, 4, "quadratic")[0] == pytest.approx(0.8, abs=1e-12)
    # Linear weights |i-j|: rows 1/4 * (1/4 + 2/2) = 0.3125, 1/2 * 3/4 = 0.375, 1/4 * (2/4 + 1/4) = 0.1875;
    # sum 0.875; kappa = 1 - 0.25 / 0.875 = 5/7.
    assert stats.weighted_kappa(a, b, ONES, 4, "linear")[0] == pytest.approx(5 / 7, abs=1e-12)


def test_krippendorff_alpha_by_hand():
    # Interval: D_o = mean (a - b)^2 = (0 + 9 + 0 + 9) / 4 = 4.5. The 8 pooled values have mean -3 and
    # sum of squares 46, so D_e = 2 * 46 / 7; alpha = 1 - 4.5 * 7 / 92 = 0.657608...
    assert stats.alpha_interval(np.vstack([A, B]), ONES)[0] == pytest.approx(1 - 4.5 * 7 / 92, abs=1e-12)
    # Ordinal on the bands: coincidences o00 = 2, o11 = 2, o22 = 2, o12 = o21 = 1; n = (2, 3, 3), 8 values.
    # delta(c, k) = sum of n_g from c to k - (n_c + n_k) / 2: delta01 = 2.5, delta12 = 3, delta02 = 5.5.
    # Observed: 2 * 9 = 18; expected: 2 * (2*3*6.25 + 3*3*9 + 2*3*30.25) / 7 = 600 / 7; alpha = 1 - 18 * 7 / 600 = 0.79.
    codes = np.vstack([band_codes(A), band_codes(B)])
    assert stats.alpha_ordinal(codes, ONES, 4)[0] == pytest.approx(0.79, abs=1e-12)


def _random_case(rng, raters: int, items: int, missing: float = 0.2):
    values = rng.choice([0.0, -0.1, -1.0, -2.0, -5.0, -6.0, -10.0, -25.0, -30.0], size=(raters, items))
    values[rng.random((raters, items)) < missing] = np.nan
    weights = rng.integers(0, 3, items).astype(float)
    return values, weights, np.repeat(np.arange(items), weights.astype(int))


@pytest.mark.parametrize("seed", range(12))
def test_alpha_equals_the_krippendorff_package(seed):
    import krippendorff

    rng = np.random.default_rng(seed)
    values, weights, drawn = _random_case(rng, int(rng.integers(2, 7)), int(rng.integers(6, 40)))
    codes = band_codes(values)
    as_floats = np.where(codes < 0, np.nan, codes).astype(float)
    for w, columns in ((np.ones(values.shape[1]), slice(None)), (weights, drawn)):
        expected = krippendorff.alpha(reliability_data=values[:, columns], level_of_measurement="interval")
        assert stats.alpha_interval(values, w)[0] == pytest.approx(expected, abs=1e-10)
        expected = krippendorff.alpha(reliability_data=as_floats[:, columns], level_of_measurement="ordinal")
        assert stats.alpha_ordinal(codes, w, 4)[0] == pytest.approx(expected, abs=1e-10)


@pytest.mark.parametrize("seed", range(8))
def test_kappa_pearson_kendall_equal_sklearn_and_scipy(seed):
    from scipy.stats import kendalltau, pearsonr
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(8, 60))
    a, b = rng.integers(0, 4, n), rng.integers(0, 4, n)
    x = rng.normal(size=n).round(1)
    y = (x + rng.normal(size=n)).round(0)  # rounding makes ties for tau-b
    weights = rng.integers(0, 3, n).astype(float)
    drawn = np.repeat(np.arange(n), weights.astype(int))
    for weighting in stats.KAPPA_WEIGHTS:
        expected = cohen_kappa_score(a[drawn], b[drawn], labels=[0, 1, 2, 3], weights=weighting)
        assert stats.weighted_kappa(a, b, weights, 4, weighting)[0] == pytest.approx(expected, abs=1e-12)
    assert stats.pearson(x, y, weights)[0] == pytest.approx(pearsonr(x[drawn], y[drawn]).statistic, abs=1e-12)
    assert stats.kendall_tau_b(x, y, weights)[0] == pytest.approx(kendalltau(x[drawn], y[drawn]).statistic, abs=1e-12)


def test_kendall_blocks_match_one_block(monkeypatch):
    rng = np.random.default_rng(5)
    x, y = rng.integers(0, 6, 700).astype(float), rng.integers(0, 6, 700).astype(float)
    w = stats.bootstrap_weights(700, 3, 1)
    whole = stats.kendall_tau_b(x, y, w)
    monkeypatch.setattr(stats, "_BLOCK", 64)
    assert np.allclose(stats.kendall_tau_b(x, y, w), whole, atol=1e-12)


def test_undefined_statistics_are_nan():
    same = np.zeros(4)
    assert np.isnan(stats.pearson(same, B, ONES)[0]) and np.isnan(stats.kendall_tau_b(A, same, ONES)[0])
    assert np.isnan(stats.alpha_interval(np.vstack([same, same]), ONES)[0])
    zero = np.zeros(4, dtype=int)
    assert np.isnan(stats.weighted_kappa(zero, zero, ONES, 4)[0])
    assert np.isnan(stats.alpha_ordinal(np.vstack([zero, zero]), ONES, 4)[0])
    with pytest.raises(ValueError, match="kappa weights must be one of linear, quadratic"):
        stats.weighted_kappa(zero, zero, ONES, 4, "cubic")


def test_bootstrap_is_seeded_and_its_interval_holds_the_point_estimate():
    rng = np.random.default_rng(0)
    x = rng.normal(size=200)
    y = x + rng.normal(scale=0.8, size=200)
    w = stats.bootstrap_weights(200, 500, 7)
    assert (w.sum(axis=1) == 200).all()
    assert np.array_equal(w, stats.bootstrap_weights(200, 500, 7))  # the same seed, the same draws
    assert not np.array_equal(w, stats.bootstrap_weights(200, 500, 8))
    point = stats.pearson(x, y, np.ones(200))[0]
    draws = stats.pearson(x, y, w)
    low, high = stats.percentile_interval(draws)
    assert low < point < high and (low, high) == pytest.approx(tuple(np.percentile(draws, [2.5, 97.5])))
    assert 0.5 < low and high < 0.9  # r is about 0.78 here: a 95% interval over 200 items is narrow
    # One draw, item by item: the same as resampling the items by index with the same generator.
    picks = np.random.default_rng(7).integers(0, 200, size=(500, 200))
    from scipy.stats import pearsonr

    assert draws[3] == pytest.approx(pearsonr(x[picks[3]], y[picks[3]]).statistic, abs=1e-12)

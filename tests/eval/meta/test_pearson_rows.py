"""One Pearson implementation (correlation.pearson_rows): every entry point agrees with scipy and with it."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import pearsonr

from tribunal.eval.meta import agreement_stats
from tribunal.eval.meta.correlation import pearson, pearson_rows
from tribunal.eval.meta.judge_human import agreement
from tribunal.eval.meta.significance import pearson_statistic, rowwise_pearson


@pytest.fixture
def data():
    rng = np.random.default_rng(7)
    x = rng.normal(size=40).round(1)
    return x, x + rng.normal(size=40), rng.normal(size=(5, 40))


def test_the_plain_case_is_scipys(data):
    x, y, _ = data
    assert pearson_rows(x, y) == pytest.approx(pearsonr(x, y).statistic, abs=1e-12)
    assert pearson(x, y) == pytest.approx(pearsonr(x, y).statistic, abs=1e-12)


def test_rows_broadcast_against_a_fixed_side(data):
    x, _, rows = data
    expected = [pearsonr(row, x).statistic for row in rows]
    assert pearson_rows(rows, x) == pytest.approx(expected, abs=1e-12)
    assert pearson_statistic(x)(rows) == pytest.approx(expected, abs=1e-12)
    assert rowwise_pearson(rows, np.broadcast_to(x, rows.shape)) == pytest.approx(expected, abs=1e-12)


def test_weights_are_repeat_counts(data):
    x, y, _ = data
    rng = np.random.default_rng(3)
    picks = rng.integers(0, len(x), size=(4, len(x)))
    w = np.stack([np.bincount(p, minlength=len(x)) for p in picks]).astype(float)
    expected = [pearsonr(x[p], y[p]).statistic for p in picks]
    assert pearson_rows(x, y, w) == pytest.approx(expected, abs=1e-12)
    assert agreement_stats.pearson(x, y, w) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("x, y, w", [
    ([1.0, 2.0], [3.0, 3.0], None),  # a constant side
    ([0.1, 0.1, 0.1], [1.0, 2.0, 3.0], [3.0, 1.0, 2.0]),  # constant under the weights (0.1 is inexact)
    ([1.0, 2.0, 3.0], [1.0, 5.0, 2.0], [0.0, 2.0, 0.0]),  # one item drawn (twice)
    ([1.0], [2.0], None),
])
def test_undefined_is_nan(x, y, w):
    assert np.isnan(pearson_rows(np.array(x), np.array(y), None if w is None else np.array(w)))


def test_judge_vs_human_pearson_is_the_same_statistic(data):
    x, y, _ = data
    labels = ["a", "b"] * (len(x) // 2)
    result = agreement(labels, labels, ["a", "b"], judge_scores=list(x), human_scores=list(y))
    assert result.pearson == pytest.approx(pearson(x, y), abs=1e-15)
    constant = agreement(labels, labels, ["a", "b"], judge_scores=[1.0] * len(x), human_scores=list(y))
    assert np.isnan(constant.pearson) and "pearson undefined" in constant.notes[-1]

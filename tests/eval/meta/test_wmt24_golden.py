"""Golden test: the WMT24 protocol on the shipped WMT23 data (mt-metrics-eval's WMT24OnWMT23).

Six tasks, weight 1/6 each: per pair system-level SPA and segment-level acc_eq. The expected
values (``expected_wmt24_on_wmt23.tsv``, 6 decimals) are checked three ways:
- acc_eq is WMT23's acc-t task (same systems, grouping by item, sample rate 1.0), so those
  columns must equal the official WMT23 values in ``EXPECTED_wmt23_baselines.tsv``;
- en-de SPA of every metric is re-derived here from the literal definition (below), exactly;
- every SPA value agrees with a float32 computation the way mt-metrics-eval does it, to the
  1e-4 its rounding of ties allows.
"""

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tribunal.data.mtme import LanguagePair
from tribunal.eval.meta.protocols import WMT24
from tribunal.eval.meta.table import meta_eval_table

EXPECTED = Path(__file__).with_name("expected_wmt24_on_wmt23.tsv")
LPS = ("en-de", "he-en", "zh-en")


@pytest.fixture(scope="module")
def computed(wmt23_root, score_cache):
    result = meta_eval_table({lp: LanguagePair(wmt23_root, lp, cache=score_cache.cache) for lp in LPS}, None, WMT24)
    score_cache.check()
    return result


def test_all_14_metrics_match_expected(computed):
    expected = pd.read_csv(EXPECTED, sep="\t")
    assert len(expected) == 14
    assert list(computed.table.columns) == list(expected.columns) == [
        "metric", "avg_corr", *(f"{lp}_{task}" for lp in LPS for task in ("sys_spa", "seg_acc_eq"))]
    got = computed.table.set_index("metric").loc[expected["metric"]]
    assert np.abs(got.to_numpy() - expected.set_index("metric").to_numpy()).max() <= 5e-7
    assert list(computed.table.metric) == list(expected.metric)  # same order: by avg_corr
    tasks = got.drop(columns="avg_corr").to_numpy()
    assert np.allclose(got["avg_corr"], tasks.mean(axis=1), atol=1e-15)  # equal weights, 1/6 each
    assert not computed.problems() and not computed.notes


def test_acc_eq_is_the_official_wmt23_acc_t(computed, wmt23_root):
    official = pd.read_csv(wmt23_root / "EXPECTED_wmt23_baselines.tsv", sep="\t").set_index("metric")
    table = computed.table.set_index("metric").loc[official.index]
    for lp in LPS:
        assert np.abs(table[f"{lp}_seg_acc_eq"] - official[f"{lp}_seg_acc_t"]).max() <= 1e-6


def literal_spa(gold: np.ndarray, metric: np.ndarray) -> float:
    """SPA straight from the definition; gold in exact tenths, metric comparisons exact on its floats.

    p_ij = mean over the 1000 sign rows of [sign.s_i - sign.s_j >= sum(s_i) - sum(s_j)].
    """
    n_segments, n_systems = gold.shape
    signs = np.rint(np.random.default_rng(4).random(size=(1000, n_segments), dtype=np.float32)) * 2 - 1
    tenths = np.rint(gold * 10).astype(np.int64)  # MQM scores are multiples of 0.1 (files hold float noise)
    assert np.abs(tenths / 10 - gold).max() < 1e-9
    int_signs = signs.astype(np.int64)

    def p_gold(i, j):
        null = int_signs @ tenths[:, i] - int_signs @ tenths[:, j]
        return np.mean(null >= tenths[:, i].sum() - tenths[:, j].sum())

    def p_metric(i, j):
        x, y = metric[:, i], metric[:, j]
        margin = (signs @ x - signs @ y) - (x.sum() - y.sum())
        bound = 8 * n_segments * 2.0 ** -53 * (np.abs(x).sum() + np.abs(y).sum())
        wins = margin >= 0
        for r in np.flatnonzero(np.abs(margin) <= bound):  # too close for float sums: exact sum
            wins[r] = math.fsum(np.concatenate([signs[r] * x, -signs[r] * y, -x, y])) >= 0
        return wins.mean()

    pairs = [(i, j) for i in range(n_systems) for j in range(i + 1, n_systems)]
    return 1 - float(np.mean([abs(p_gold(i, j) - p_metric(i, j)) for i, j in pairs]))


def test_en_de_spa_equals_the_literal_definition(computed):
    for (metric, lp), (gold, aligned) in computed.inputs.items():
        if lp != "en-de":
            continue
        rows, columns = gold.spa_cells
        assert len(rows) == 460 and len(columns) == 12  # every rated segment, every system
        value = literal_spa(gold.seg[np.ix_(rows, columns)], aligned.seg[np.ix_(rows, columns)])
        assert computed.details[metric][lp].sys_spa == pytest.approx(value, abs=1e-12), metric


def float32_spa(gold: np.ndarray, metric: np.ndarray) -> float:
    """SPA computed as mt-metrics-eval does: float32 sums, ties left to rounding."""
    def p_values(scores):
        signs = np.rint(np.random.default_rng(4).random(size=(1000, scores.shape[0]), dtype=np.float32)) * 2 - 1
        s = scores.T.astype(np.float32)
        partial, totals = signs @ s.T, s.sum(axis=1)
        i, j = np.triu_indices(s.shape[0], k=1)
        return ((partial[:, i] - partial[:, j]) >= (totals[i] - totals[j])).mean(axis=0)
    return 1 - float(np.abs(p_values(gold) - p_values(metric)).mean())


def test_float32_toolkit_computation_agrees_to_1e4(computed):
    worst = 0.0
    for (metric, lp), (gold, aligned) in computed.inputs.items():
        rows, columns = gold.spa_cells
        cells = np.ix_(rows, columns)
        worst = max(worst, abs(float32_spa(gold.seg[cells], aligned.seg[cells]) - computed.details[metric][lp].sys_spa))
    assert worst < 1e-4, worst

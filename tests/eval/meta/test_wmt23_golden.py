"""Golden test: the official WMT23 primary-table values of the 14 shipped baseline metrics."""

import numpy as np
import pandas as pd
import pytest

from tribunal.data.mtme import LanguagePair
from tests.support.wmt23_table import table_columns, wmt23_table


@pytest.fixture(scope="module")
def computed(wmt23_root, score_cache):
    pairs = {lp: LanguagePair(wmt23_root, lp, cache=score_cache.cache) for lp in ("en-de", "he-en", "zh-en")}
    result = wmt23_table(pairs)
    score_cache.check()
    return result


def test_all_14_metrics_match_expected_to_1e6(computed, wmt23_root):
    table, _ = computed
    expected = pd.read_csv(wmt23_root / "EXPECTED_wmt23_baselines.tsv", sep="\t")
    assert len(expected) == 14
    assert list(table.columns) == list(expected.columns) == table_columns()
    got = table.set_index("metric").loc[expected["metric"]]
    diff = np.abs(got.to_numpy() - expected.set_index("metric").to_numpy())
    assert diff.max() <= 1e-6, diff.max()


def test_sorted_by_avg_corr_and_no_problems(computed):
    table, details = computed
    assert table["avg_corr"].is_monotonic_decreasing
    assert not [p for per_lp in details.values() for r in per_lp.values() for p in r.problems]


def test_single_lp_subset_weights(wmt23_root):
    """With one LP the average has 4 tasks of equal weight (task 1 weighs len(lps) = 1)."""
    table, _ = wmt23_table({"en-de": LanguagePair(wmt23_root, "en-de")}, ["COMET"])
    row = table.iloc[0]
    expected = (row.sys_acc + (row["en-de_sys_pearson"] + 1) / 2 + (row["en-de_seg_pearson"] + 1) / 2
                + row["en-de_seg_acc_t"]) / 4
    assert row.avg_corr == pytest.approx(expected)
    assert list(table.columns) == table_columns(("en-de",))  # no empty columns for pairs not asked for
    assert "zh-en_sys_pearson" not in table.columns


def test_metric_missing_a_system_is_reported_not_crashed(tiny_mtme):
    sys_file = tiny_mtme / "metric-scores" / "en-de" / "M-refA.sys.score"
    sys_file.write_text("A\t0.27\nB\t0.63\n")
    table, details = wmt23_table({"en-de": LanguagePair(tiny_mtme, "en-de")})
    assert details["M"]["en-de"].problems == ["no system score for C"]
    row = table.iloc[0]
    assert np.isnan(row.sys_acc) and np.isnan(row["en-de_sys_pearson"]) and np.isnan(row.avg_corr)
    assert not np.isnan(row["en-de_seg_pearson"])  # segment tasks are still computed


def test_metric_missing_a_rated_segment_is_reported(tiny_mtme):
    seg_file = tiny_mtme / "metric-scores" / "en-de" / "M-refA.seg.score"
    seg_file.write_text(seg_file.read_text().replace("B\t0.4", "B\tNone"))
    _, details = wmt23_table({"en-de": LanguagePair(tiny_mtme, "en-de")})
    assert details["M"]["en-de"].problems == ["1 rated segment(s) without a metric score"]

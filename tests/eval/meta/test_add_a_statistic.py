"""A statistic declared in one place reaches every reader: the one ``@statistic(...)`` declaration of
``docs/guides/add-a-statistic.md``, made here (registered for one test, then removed), shows up in
``mt meta-eval``'s table, its significance clusters, ``mt compare`` and the run report of
``mt evaluate``, with nothing else edited. The declarations themselves are checked for consistency.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import rankdata

from tests.eval.meta.test_clusters import build_known_clusters
from tests.support.cli import run_cli
from tribunal.data.mtme import LanguagePair
from tribunal.eval.meta.correlation import pearson
from tribunal.eval.meta.inputs import INPUTS
from tribunal.eval.meta.protocols import PROTOCOLS
from tribunal.eval.meta.resampling_kinds import RESAMPLINGS
from tribunal.eval.meta.statistic import statistic
from tribunal.eval.meta.statistics import STATISTICS, per_lp_tasks


def spearman(gold: np.ndarray, metric: np.ndarray) -> float:
    """Spearman's rho over the cells where both scores are present (Pearson r of their ranks)."""
    gold, metric = np.asarray(gold, float).ravel(), np.asarray(metric, float).ravel()
    keep = ~(np.isnan(gold) | np.isnan(metric))
    return pearson(rankdata(gold[keep]), rankdata(metric[keep]))


@pytest.fixture
def toy():
    """The guide's declaration, registered for one test: a segment-level Spearman in the WMT23 table and the run report."""
    statistic("seg_spearman", level="segment", inputs="cells", resampling="recompute", display="seg spearman",
              correlation=True, tables=("wmt23", "run"))(spearman)
    yield STATISTICS["seg_spearman"]
    del STATISTICS["seg_spearman"]


def test_every_declaration_names_known_inputs_resampling_and_tables():
    tables = set(PROTOCOLS) | {"run"}
    for key, stat in STATISTICS.items():
        assert stat.key == key and stat.inputs in INPUTS and stat.resampling in RESAMPLINGS, key
        assert set(stat.tables) | set(stat.pooled) <= tables, key
        assert not stat.pooled or stat.pool is not None, key
        assert stat.metric_key == f"meta.{key}" and stat.display and stat.function.__doc__, key


def _table(capsys, root: Path, tmp_path: Path, *extra: str) -> pd.DataFrame:
    out = tmp_path / "table.tsv"
    outcome = run_cli(capsys, "mt", "meta-eval", "--data", root, "--output", out, "--no-track", *extra)
    assert outcome.status == 0, outcome.err
    return pd.read_csv(out, sep="\t")


def test_the_toy_statistic_is_a_column_of_the_meta_eval_table(toy, tiny_mtme, tmp_path, capsys):
    table = _table(capsys, tiny_mtme, tmp_path)
    assert list(table.columns) == ["metric", "avg_corr", "sys_acc", "en-de_sys_pearson", "en-de_seg_pearson",
                                   "en-de_seg_acc_t", "en-de_seg_spearman"]
    pair = LanguagePair(tiny_mtme, "en-de")
    systems = ["A", "B", "C"]
    gold = np.stack([pair.gold_seg[s] for s in systems], axis=1)
    metric = np.stack([pair.metric_seg("M-refA")[s] for s in systems], axis=1)
    row = table.iloc[0]
    assert row["en-de_seg_spearman"] == pytest.approx(spearman(gold, metric), abs=1e-12)
    normalised = [row.sys_acc, (row["en-de_sys_pearson"] + 1) / 2, (row["en-de_seg_pearson"] + 1) / 2,
                  row["en-de_seg_acc_t"], (row["en-de_seg_spearman"] + 1) / 2]
    assert row.avg_corr == pytest.approx(np.mean(normalised), abs=1e-12)  # it enters the average, weight 1
    assert "en-de_seg_spearman" not in _table(capsys, tiny_mtme, tmp_path, "--protocol", "wmt24").columns


def test_the_toy_statistic_is_ranked_in_the_clusters(toy, tmp_path, capsys):
    root = build_known_clusters(tmp_path / "known", n_segments=20)
    table = _table(capsys, root, tmp_path, "--significance", "40", "--seed", "5").set_index("metric")
    ranks = table["en-de_seg_spearman_rank"]
    assert (ranks["good1"], ranks["good2"], ranks["bad"]) == (1, 1, 3)
    assert table["avg_corr_rank"]["good1"] == 1


def test_the_toy_statistic_is_a_row_of_mt_compare(toy, tmp_path, capsys):
    root = build_known_clusters(tmp_path / "known", n_segments=20)
    outcome = run_cli(capsys, "mt", "compare", "good1", "bad", "--data", root, "--samples", "20", "--no-track")
    assert outcome.status == 0, outcome.err
    row = next(line for line in outcome.out.splitlines() if "en-de seg spearman" in line)
    assert "0.0476" in row  # p-value (1 + 0) / (1 + 20): good1 beats noise in every draw


def test_the_toy_statistic_is_in_the_run_report(toy, tiny_mtme):
    from tribunal.cli.mt_summary_lines import _meta_lines
    from tribunal.eval.mt.items import RunItems
    from tribunal.eval.mt.report import meta_evaluation

    pair = LanguagePair(tiny_mtme, "en-de")
    seg = {s: pair.metric_seg("M-refA")[s] for s in ("A", "B", "C")}
    meta = meta_evaluation(pair, RunItems(cells=[], items={}, systems=[]), seg)
    assert [s.key for s in per_lp_tasks("run")][-1] == "seg_spearman" and np.isfinite(meta["seg_spearman"])
    lines = list(_meta_lines(meta))
    assert lines[-1] == f"  seg_spearman: {meta['seg_spearman']:.4f}"


def test_a_lower_is_better_statistic_ranks_the_smallest_first(toy):
    from dataclasses import replace

    from tribunal.eval.meta.clusters import ranking

    null = np.full((10, 2, 2), np.nan)
    null[:, 0, 1] = np.linspace(-0.01, 0.01, 10)  # stat(hybrid_a) - stat(hybrid_b): never near the observed gap
    ranked = ranking("col", ["a", "b"], np.array([0.1, 0.9]), null, higher_better=False)
    assert ranked.metrics == ["a", "b"] and list(ranked.values) == [0.1, 0.9] and ranked.ranks == [1, 2]
    error_rate = replace(toy, correlation=False, higher_better=False)
    assert error_rate.normalise(0.25) == 0.75 and error_rate.slope == -1.0 and toy.slope == 0.5


def test_the_toy_statistic_is_a_row_of_the_run_page(toy):
    from tribunal.eval.report.render import head_html

    head = {"judge": "j", "model": "m", "data": "d", "run_id": None, "spend": None, "label": "this run",
            "items": {"total": 1, "scored": 1, "unscored": 0, "degraded": 0, "left": 0, "unscored_reasons": {},
                      "degraded_reasons": {}},
            "calls": 1, "reasks": 0, "prompt_tokens": 1, "completion_tokens": 1, "spend_usd": 0.0, "wall_seconds": 1.0,
            "meta": {"seg_spearman": 0.4321}, "spans": {}, "error_free": None, "signature": "prog:j"}
    html = head_html([head])
    assert "seg_spearman" in html and "0.4321" in html

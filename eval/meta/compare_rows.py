"""One row of ``mt compare`` per kind of resampling: two metrics' statistic, its difference, p-value and CI.

Each function takes the row's label and, per language pair of the task (one, or all of a pooled
task), the gold matrices and both metrics aligned to them; the units follow WMT (see
:mod:`compare_job`).
"""

from __future__ import annotations

import numpy as np

from tribunal.eval.meta.correlation import agreement_indicators, pair_correct, tie_calibrated_accuracy
from tribunal.eval.meta.inputs import INPUTS
from tribunal.eval.meta.lp_tasks import AlignedMetric, GoldMatrices
from tribunal.eval.meta.resampling import spa_nulls
from tribunal.eval.meta.significance import (
    bootstrap_interval,
    mean_statistic,
    pearson_statistic,
    permutation_test,
    rowwise_pearson,
)
from tribunal.eval.meta.spa import pairwise_p_values, soft_pairwise_accuracy
from tribunal.eval.meta.statistic import Statistic

Paired = list[tuple[GoldMatrices, AlignedMetric, AlignedMetric]]
"""Per language pair of a task: its gold and metrics A and B aligned to it."""


def _zscore(x: np.ndarray) -> np.ndarray:
    return (x - x.mean()) / x.std()


def _row(task: str, a: np.ndarray, b: np.ndarray, statistic, delta, samples: int, seed: int,
         n_boot: int | None = None) -> dict:
    perm = permutation_test(a, b, statistic, samples, seed)
    low, high = bootstrap_interval(n_boot or len(a), delta, samples, seed)
    return {"task": task, "units": len(a), "a": perm.statistic_a, "b": perm.statistic_b,
            "delta": perm.delta, "p_value": perm.p_value, "ci_low": low, "ci_high": high}


def pearson_row(stat: Statistic, label: str, paired: Paired, samples: int, seed: int) -> dict:
    """Pearson r over the statistic's units (systems, or rated cells), each metric z-scored."""
    gold_units, a = INPUTS[stat.inputs].units(paired[0][0], paired[0][1])
    a, b = _zscore(a), _zscore(INPUTS[stat.inputs].units(paired[0][0], paired[0][2])[1])

    def delta(rows: np.ndarray) -> np.ndarray:
        return rowwise_pearson(gold_units[rows], a[rows]) - rowwise_pearson(gold_units[rows], b[rows])

    return _row(label, a, b, pearson_statistic(gold_units), delta, samples, seed)


def pooled_accuracy_row(stat: Statistic, label: str, paired: Paired, samples: int, seed: int) -> dict:
    """Pairwise accuracy pooled over the language pairs: the units are system pairs."""
    agree_a = np.concatenate([agreement_indicators(g.sys, a.sys) for g, a, _ in paired]).astype(float)
    agree_b = np.concatenate([agreement_indicators(g.sys, b.sys) for g, _, b in paired]).astype(float)
    return _row(label, agree_a, agree_b, mean_statistic(),
                lambda rows: agree_a[rows].mean(-1) - agree_b[rows].mean(-1), samples, seed)


def pair_outcome_row(stat: Statistic, label: str, paired: Paired, samples: int, seed: int) -> dict:
    """acc-t / acc_eq: within-item pairs at each metric's tuned epsilon; the interval resamples items."""
    gold, a, b = paired[0]
    pairs_a, pairs_b = gold.pairs.table(a.seg), gold.pairs.table(b.seg)
    correct_a = pair_correct(pairs_a, tie_calibrated_accuracy(pairs_a)[1]).astype(float)
    correct_b = pair_correct(pairs_b, tie_calibrated_accuracy(pairs_b)[1]).astype(float)
    items = np.unique(pairs_a.row)
    item_a = np.bincount(pairs_a.row, pairs_a.weight * correct_a)[items]
    item_b = np.bincount(pairs_a.row, pairs_a.weight * correct_b)[items]
    delta = lambda rows: item_a[rows].mean(-1) - item_b[rows].mean(-1)  # noqa: E731
    statistic = mean_statistic(pairs_a.weight / pairs_a.n_rows)
    return _row(label, correct_a, correct_b, statistic, delta, samples, seed, n_boot=len(items))


def null_row(label: str, units: int, stat_a: float, stat_b: float, null: np.ndarray, samples: int) -> dict:
    """A row whose p-value reads seeded draws of the hybrid difference; no bootstrap interval."""
    delta = stat_a - stat_b
    extreme = (null >= delta - 1e-12) if delta >= 0 else (null <= delta + 1e-12)
    return {"task": label, "units": units, "a": stat_a, "b": stat_b, "delta": delta,
            "p_value": float((1 + extreme.sum()) / (1 + samples)), "ci_low": np.nan, "ci_high": np.nan}


def spa_row(stat: Statistic, label: str, paired: Paired, samples: int, seed: int) -> dict:
    """SPA: rated cells swap (z-scored), with the draws of the clusters (:func:`resampling.spa_nulls`)."""
    gold, a, b = paired[0]
    rows, columns = gold.spa_cells
    cells = np.ix_(rows, columns)
    stat_a, stat_b = (soft_pairwise_accuracy(gold.spa_p_values, pairwise_p_values(m.seg[cells])) for m in (a, b))
    null = spa_nulls(gold.spa_p_values, np.stack([a.seg[cells], b.seg[cells]]), samples,
                     np.random.default_rng(seed))[:, 0, 1]
    return null_row(label, int(len(rows) * len(columns)), stat_a, stat_b, null, samples)

"""Significance clusters of a primary table (the WMT procedure, as in mt-metrics-eval).

For each task, metrics are ordered by decreasing value (ties by name); for every two metrics
i above j, ``p[i, j]`` is the share of the K paired permutation draws (:mod:`resampling`) in which
the hybrid difference reaches the observed one, ``null >= value_i - value_j`` (up to 1e-12). The weighted
average is tested the same way on the weighted sum of the tasks' draws (each task's draw k
rescaled to 0..1 as in the average; mt-metrics-eval's ``AverageCorrMatrix``), over the metrics
present in every task.

Ranks (mt-metrics-eval's ``AssignRanks``): walking down the ordered metrics, a metric starts a
new, lower cluster when some metric of the current cluster beats it with ``p <= alpha``; so a
metric's rank is 1 + the number of clusters above it. The comparison is ``<=`` as in the
toolkit, whose ranks the published tables show.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable

import numpy as np

from tribunal.eval.meta.resampling import accuracy_nulls, pair_outcome_nulls, pearson_nulls, spa_nulls
from tribunal.eval.meta.table import MetaEvalTable
from tribunal.eval.meta.protocols import Task

ALPHA = 0.05
TIE = 1e-12
"""Differences below this count as ties: the draws are linear updates that carry ~1e-15 of rounding,
so twin metrics (equal up to rounding) must not look significantly different."""


@dataclass
class Ranking:
    """One column's ranking: metrics by decreasing value, their p-value matrix and cluster ranks."""

    column: str
    metrics: list[str]
    values: np.ndarray
    p_values: np.ndarray
    ranks: list[int]

    def rank_of(self) -> dict[str, int]:
        return dict(zip(self.metrics, self.ranks))


def assign_ranks(p_values: np.ndarray, alpha: float = ALPHA) -> list[int]:
    """Cluster ranks from an upper-triangular p-value matrix of metrics in decreasing order."""
    ranks, current, start = [], 1, 0
    for i in range(p_values.shape[0]):
        if np.any(p_values[start:i, i] <= alpha):
            current, start = current + 1, i
        ranks.append(current)
    return ranks


def ranking(column: str, names: list[str], values: np.ndarray, null: np.ndarray, alpha: float = ALPHA) -> Ranking:
    """Order metrics, read p-values off the draws ``null[k, a, b]`` (a < b in ``names`` order), rank."""
    order = sorted(range(len(names)), key=lambda m: (-values[m], names[m]))
    n = len(order)
    p = np.zeros((n, n))
    for x in range(n):
        for y in range(x + 1, n):
            i, j = order[x], order[y]
            draws = null[:, i, j] if i < j else -null[:, j, i]
            p[x, y] = float(np.mean(draws >= values[i] - values[j] - TIE))
    return Ranking(column, [names[m] for m in order], values[order], p, assign_ranks(p, alpha))


Draws = Callable[[MetaEvalTable, Task, list[str], int, np.random.Generator], np.ndarray]


def _entries(result: MetaEvalTable, task: Task, names: list[str], lp: str | None = None) -> list:
    return [result.inputs[m, lp or task.lps[0]] for m in names]


def _pooled_accuracy(result, task, names, samples, rng):
    per_lp = [_entries(result, task, names, lp) for lp in task.lps]
    return accuracy_nulls([e[0][0].sys for e in per_lp], [np.stack([a.sys for _, a in e]) for e in per_lp],
                          samples, rng)


def _sys_pearson(result, task, names, samples, rng):
    entries = _entries(result, task, names)
    return pearson_nulls(entries[0][0].sys, np.stack([a.sys for _, a in entries]), samples, rng)


def _seg_pearson(result, task, names, samples, rng):
    entries = _entries(result, task, names)
    rated = ~np.isnan(entries[0][0].seg)
    return pearson_nulls(entries[0][0].seg[rated], np.stack([a.seg[rated] for _, a in entries]), samples, rng)


def _pair_outcomes(result, task, names, samples, rng):
    entries = _entries(result, task, names)
    epsilons = [result.details[m][task.lps[0]].epsilon for m in names]
    return pair_outcome_nulls(entries[0][0].pairs, [a.seg for _, a in entries], epsilons, samples, rng)


def _spa(result, task, names, samples, rng):
    entries = _entries(result, task, names)
    gold = entries[0][0]
    cells = np.ix_(*gold.spa_cells)
    return spa_nulls(gold.spa_p_values, np.stack([a.seg[cells] for _, a in entries]), samples, rng)


DRAWS: dict[str, Draws] = {
    "sys_acc": _pooled_accuracy,
    "sys_pearson": _sys_pearson,
    "seg_pearson": _seg_pearson,
    "seg_acc_t": _pair_outcomes,
    "seg_acc_eq": _pair_outcomes,
    "sys_spa": _spa,
}
"""Paired permutation draws per kind of task, for metrics all scored on the task's gold."""


def significance(result: MetaEvalTable, samples: int, seed: int, alpha: float = ALPHA) -> dict[str, Ranking]:
    """Rankings of every task column and of ``avg_corr`` from ``samples`` seeded paired draws.

    Metrics with a value on a task enter its ranking; coverage-limited rows (their own gold
    cells) are left out of every ranking, as they are not paired with the others.
    """
    table = result.table.set_index("metric")
    limited = {m for m, per_lp in result.details.items() if any(r.note for r in per_lp.values())}
    candidates = [m for m in table.index if m not in limited]
    scored = {}
    for number, task in enumerate(result.tasks):
        names = [m for m in candidates if np.isfinite(table.at[m, task.column])]
        if len(names) >= 2:
            scored[number] = names
    # Each task draws from its own seeded generator, so running them on threads changes no number;
    # matrix products and comparisons release the GIL.
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        futures = {n: pool.submit(DRAWS[result.tasks[n].kind], result, result.tasks[n], names, samples,
                                  np.random.default_rng([seed, n])) for n, names in scored.items()}
    rankings, nulls = {}, {}
    for number, names in scored.items():
        task = result.tasks[number]
        nulls[task.column] = (names, futures[number].result())
        values = table.loc[names, task.column].to_numpy(float)
        rankings[task.column] = ranking(task.column, names, values, nulls[task.column][1], alpha)
    everywhere = [m for m in candidates if np.isfinite(table.at[m, "avg_corr"])
                  and all(m in nulls.get(t.column, ([],))[0] for t in result.tasks)]
    if len(everywhere) >= 2:
        total = sum(t.weight for t in result.tasks)
        average = np.zeros((samples, len(everywhere), len(everywhere)))
        for task in result.tasks:
            names, null = nulls[task.column]
            keep = [names.index(m) for m in everywhere]
            scale = task.weight / total * (0.5 if task.spec.correlation else 1.0)
            average += scale * null[:, keep][:, :, keep]
        values = table.loc[everywhere, "avg_corr"].to_numpy(float)
        rankings["avg_corr"] = ranking("avg_corr", everywhere, values, average, alpha)
    return rankings

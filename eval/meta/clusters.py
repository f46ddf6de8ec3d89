"""Significance clusters of a primary table (the WMT procedure, as in mt-metrics-eval).

For each task, metrics are ordered by decreasing value (increasing for a statistic declared
``higher_better=False``; ties by name), and drawn by the resampling its statistic declares
(:mod:`resampling_kinds`); for every two metrics
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
import numpy as np

from tribunal.eval.meta.resampling_kinds import RESAMPLINGS
from tribunal.eval.meta.table import MetaEvalTable

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


def ranking(column: str, names: list[str], values: np.ndarray, null: np.ndarray, alpha: float = ALPHA,
            higher_better: bool = True) -> Ranking:
    """Order metrics (best first), read p-values off the draws ``null[k, a, b]`` (a < b in ``names`` order), rank."""
    if not higher_better:  # rank the negated statistic; report the values as they are
        flipped = ranking(column, names, -np.asarray(values, float), -null, alpha)
        return Ranking(column, flipped.metrics, -flipped.values, flipped.p_values, flipped.ranks)
    order = sorted(range(len(names)), key=lambda m: (-values[m], names[m]))
    n = len(order)
    p = np.zeros((n, n))
    for x in range(n):
        for y in range(x + 1, n):
            i, j = order[x], order[y]
            draws = null[:, i, j] if i < j else -null[:, j, i]
            p[x, y] = float(np.mean(draws >= values[i] - values[j] - TIE))
    return Ranking(column, [names[m] for m in order], values[order], p, assign_ranks(p, alpha))


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
        futures = {n: pool.submit(RESAMPLINGS[result.tasks[n].spec.resampling].draws, result, result.tasks[n], names,
                                  samples, np.random.default_rng([seed, n])) for n, names in scored.items()}
    rankings, nulls = {}, {}
    for number, names in scored.items():
        task = result.tasks[number]
        nulls[task.column] = (names, futures[number].result())
        values = table.loc[names, task.column].to_numpy(float)
        rankings[task.column] = ranking(task.column, names, values, nulls[task.column][1], alpha,
                                        task.spec.higher_better)
    everywhere = [m for m in candidates if np.isfinite(table.at[m, "avg_corr"])
                  and all(m in nulls.get(t.column, ([],))[0] for t in result.tasks)]
    if len(everywhere) >= 2:
        total = sum(t.weight for t in result.tasks)
        average = np.zeros((samples, len(everywhere), len(everywhere)))
        for task in result.tasks:
            names, null = nulls[task.column]
            keep = [names.index(m) for m in everywhere]
            scale = task.weight / total * task.spec.slope  # each draw on the 0..1 scale of the average
            average += scale * null[:, keep][:, :, keep]
        values = table.loc[everywhere, "avg_corr"].to_numpy(float)
        rankings["avg_corr"] = ranking("avg_corr", everywhere, values, average, alpha)
    return rankings

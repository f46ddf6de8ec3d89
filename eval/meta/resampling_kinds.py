"""How each statistic is resampled for significance, by the name it declares (``resampling="pearson"``).

A kind of resampling gives the clusters of ``mt meta-eval --significance`` their paired
permutation draws of every metric pair at once (:mod:`resampling`, :mod:`clusters`) and
``mt compare`` its row for two metrics (:mod:`compare_rows`). The units per kind follow
mt-metrics-eval: ``pearson`` swaps the statistic's units (systems or rated cells, z-scored),
``pooled_accuracy`` systems of every pair, ``pair_outcomes`` within-item pairs' outcomes at each
metric's tuned epsilon, ``spa`` rated cells; ``recompute`` (:mod:`recompute`) swaps the units of
any statistic and recomputes its function.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from tribunal.eval.meta import compare_rows
from tribunal.eval.meta.compare_rows import Paired, null_row
from tribunal.eval.meta.inputs import INPUTS
from tribunal.eval.meta.lp_tasks import compute
from tribunal.eval.meta.protocols import Task
from tribunal.eval.meta.recompute import recompute_nulls
from tribunal.eval.meta.resampling import accuracy_nulls, pair_outcome_nulls, pearson_nulls, spa_nulls
from tribunal.eval.meta.statistic import Statistic, split_value
from tribunal.eval.meta.table import MetaEvalTable

Draws = Callable[[MetaEvalTable, Task, list[str], int, np.random.Generator], np.ndarray]
"""(table, task, metrics, samples, rng) -> null[k, a, b] for metrics a < b (see :mod:`resampling`)."""
CompareRow = Callable[[Statistic, str, Paired, int, int], dict]
"""(statistic, label, per-pair gold and metrics A and B, samples, seed) -> one ``mt compare`` row."""


@dataclass(frozen=True)
class Resampling:
    """One kind of resampling: the clusters' draws and ``mt compare``'s row."""

    draws: Draws
    compare: CompareRow


def _entries(result: MetaEvalTable, task: Task, names: list[str], lp: str | None = None) -> list:
    """What each metric's value on the task's (first) pair was computed from: (gold, aligned) per metric."""
    return [result.inputs[m, lp or task.lps[0]] for m in names]


def _pooled_accuracy(result: MetaEvalTable, task: Task, names: list[str], samples: int,
                     rng: np.random.Generator) -> np.ndarray:
    per_lp = [_entries(result, task, names, lp) for lp in task.lps]
    return accuracy_nulls([e[0][0].sys for e in per_lp], [np.stack([a.sys for _, a in e]) for e in per_lp],
                          samples, rng)


def _pearson(result: MetaEvalTable, task: Task, names: list[str], samples: int,
             rng: np.random.Generator) -> np.ndarray:
    units = INPUTS[task.spec.inputs].units
    entries = _entries(result, task, names)
    gold_units = units(*entries[0])[0]
    return pearson_nulls(gold_units, np.stack([units(g, a)[1] for g, a in entries]), samples, rng)


def _pair_outcomes(result: MetaEvalTable, task: Task, names: list[str], samples: int,
                   rng: np.random.Generator) -> np.ndarray:
    entries = _entries(result, task, names)
    epsilons = [result.details[m][task.lps[0]].extras[task.kind]["epsilon"] for m in names]
    return pair_outcome_nulls(entries[0][0].pairs, [a.seg for _, a in entries], epsilons, samples, rng)


def _spa(result: MetaEvalTable, task: Task, names: list[str], samples: int,
         rng: np.random.Generator) -> np.ndarray:
    entries = _entries(result, task, names)
    gold = entries[0][0]
    cells = np.ix_(*gold.spa_cells)
    return spa_nulls(gold.spa_p_values, np.stack([a.seg[cells] for _, a in entries]), samples, rng)


def _recompute(result: MetaEvalTable, task: Task, names: list[str], samples: int,
               rng: np.random.Generator) -> np.ndarray:
    entries = _entries(result, task, names)
    return recompute_nulls(task.spec, entries[0][0], [a for _, a in entries], samples, rng)


def _recompute_row(stat: Statistic, label: str, paired: Paired, samples: int, seed: int) -> dict:
    gold, a, b = paired[0]
    values = [split_value(compute(stat, gold, m))[0] for m in (a, b)]
    null = recompute_nulls(stat, gold, [a, b], samples, np.random.default_rng(seed))[:, 0, 1]
    units = int(np.size(INPUTS[stat.inputs].units(gold, a)[1]))
    return null_row(label, units, values[0], values[1], null, samples)


RESAMPLINGS: dict[str, Resampling] = {
    "pooled_accuracy": Resampling(_pooled_accuracy, compare_rows.pooled_accuracy_row),
    "pearson": Resampling(_pearson, compare_rows.pearson_row),
    "pair_outcomes": Resampling(_pair_outcomes, compare_rows.pair_outcome_row),
    "spa": Resampling(_spa, compare_rows.spa_row),
    "recompute": Resampling(_recompute, _recompute_row),
}
"""Every kind of resampling by the name a statistic declares."""

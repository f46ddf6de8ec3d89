"""The resampling any statistic can use: swap units between two metrics and recompute its function.

A statistic declared with ``resampling="recompute"`` needs no draws of its own: under the null
hypothesis two metrics are exchangeable, so every entry of the metric side of its inputs (a system,
a cell) takes the other metric's value with probability 1/2 and the statistic's own function is
recomputed on both hybrids (the PERM-BOTH test of Deutsch et al., 2021, as
:mod:`resampling` does in closed form for WMT's statistics). Each metric's scores are z-scored
first (over its finite entries) so that values of two metrics can be mixed, as WMT does for
Pearson and SPA: this suits statistics that an affine rescaling of a metric's scores leaves
unchanged (correlations, rank-based accuracies). It costs two calls of the function per draw and
pair of metrics, so it is meant for small tables and new statistics; ``mt compare`` gives its
p-value from the same draws, without a bootstrap interval.
"""

from __future__ import annotations

import numpy as np

from tribunal.eval.meta.inputs import INPUTS
from tribunal.eval.meta.lp_tasks import AlignedMetric, GoldMatrices
from tribunal.eval.meta.statistic import Statistic, split_value


def zscore_finite(values: np.ndarray) -> np.ndarray:
    """Standard scores over the finite entries (NaN stays NaN; a constant metric becomes 0)."""
    values = np.asarray(values, float)
    finite = np.isfinite(values)
    mean, std = values[finite].mean(), values[finite].std()
    return (values - mean) / std if std > 0 else np.where(finite, 0.0, np.nan)


def recompute_nulls(stat: Statistic, gold: GoldMatrices, aligned: list[AlignedMetric], samples: int,
                    rng: np.random.Generator) -> np.ndarray:
    """``null[k, a, b] = stat(hybrid_a) - stat(hybrid_b)`` for a < b over ``samples`` seeded swap patterns."""
    inputs = INPUTS[stat.inputs]
    gold_side = inputs.gold(gold)
    sides = [zscore_finite(inputs.metric(gold, a)) for a in aligned]
    n_metrics = len(sides)
    null = np.full((samples, n_metrics, n_metrics), np.nan)
    a, b = np.triu_indices(n_metrics, k=1)
    for draw in range(samples):
        swap = rng.random(sides[0].shape) < 0.5
        for i, j in zip(a, b):
            hybrid_i = split_value(stat.function(gold_side, np.where(swap, sides[j], sides[i])))[0]
            hybrid_j = split_value(stat.function(gold_side, np.where(swap, sides[i], sides[j])))[0]
            null[draw, i, j] = hybrid_i - hybrid_j
    return null

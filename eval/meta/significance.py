"""Seeded paired significance tests between two metrics on the same units.

Paired permutation (approximate randomisation; Noreen 1989; Riezler & Maxwell 2005, as used by
WMT's metrics tasks): under the null hypothesis the two metrics are exchangeable, so each unit's
pair of values is swapped with probability 1/2 and the difference of the statistic recomputed.
The p-value is one-sided in the direction of the observed difference, with the (1 + count) /
(1 + samples) correction of Phipson & Smyth (2010); ``exact=True`` enumerates every swap pattern
for small cases and returns the exact share. A paired bootstrap over units gives a 95% interval
for the difference (Koehn 2004).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Callable

import numpy as np

from tribunal.eval.meta.correlation import pearson_rows

Statistic = Callable[[np.ndarray], np.ndarray]
"""Maps a (samples x units) array of per-unit values to one statistic per sample."""


@dataclass(frozen=True)
class PermutationResult:
    statistic_a: float
    statistic_b: float
    delta: float
    p_value: float
    samples: int
    seed: int


def mean_statistic(weights: np.ndarray | None = None) -> Statistic:
    """Weighted sum (weights default to 1/n): accuracy-like statistics are linear in the units."""
    def statistic(values: np.ndarray) -> np.ndarray:
        w = np.full(values.shape[-1], 1 / values.shape[-1]) if weights is None else weights
        return values @ w
    return statistic


def pearson_statistic(gold: np.ndarray) -> Statistic:
    """Pearson r of each sample row against fixed gold values (:func:`~tribunal.eval.meta.correlation.pearson_rows`)."""
    gold = np.asarray(gold, dtype=float)
    return lambda values: pearson_rows(values, gold)


def permutation_test(
    a: np.ndarray, b: np.ndarray, statistic: Statistic, samples: int = 1000, seed: int = 1234, exact: bool = False
) -> PermutationResult:
    """Paired permutation test of metric A's statistic against B's over per-unit values."""
    a, b = _paired(a, b)
    stat_a, stat_b = float(statistic(a[None])[0]), float(statistic(b[None])[0])
    delta = stat_a - stat_b
    if exact:
        swaps = np.array(list(itertools.product([False, True], repeat=len(a))))
    else:
        swaps = np.random.default_rng(seed).random((samples, len(a))) < 0.5
    chunks = np.array_split(swaps, max(1, len(swaps) // 100))  # bounds memory on large unit sets
    null = np.concatenate([statistic(np.where(c, b, a)) - statistic(np.where(c, a, b)) for c in chunks])
    extreme = (null >= delta) if delta >= 0 else (null <= delta)
    p_value = extreme.mean() if exact else (1 + extreme.sum()) / (1 + len(null))
    return PermutationResult(stat_a, stat_b, delta, float(p_value), len(null), seed)


def bootstrap_interval(
    n_units: int, delta: Callable[[np.ndarray], np.ndarray], samples: int = 1000, seed: int = 1234, level: float = 0.95
) -> tuple[float, float]:
    """Percentile interval of a paired difference under resampling of units with replacement.

    ``delta`` maps a (samples x n_units) array of unit indices to one difference per sample,
    resampling everything that belongs to a unit together (gold included).
    """
    index = np.random.default_rng(seed).integers(0, n_units, size=(samples, n_units))
    deltas = np.concatenate([delta(rows) for rows in np.array_split(index, max(1, samples // 100))])
    tail = (1 - level) / 2 * 100
    low, high = np.nanpercentile(deltas, [tail, 100 - tail])
    return float(low), float(high)


def rowwise_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r of each row of ``x`` with the same row of ``y`` (:func:`~tribunal.eval.meta.correlation.pearson_rows`)."""
    return pearson_rows(x, y)


def _paired(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.asarray(a, float), np.asarray(b, float)
    if a.shape != b.shape or a.ndim != 1 or len(a) == 0:
        raise ValueError("a and b must be non-empty 1-d arrays of the same length")
    return a, b

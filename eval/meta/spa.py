"""System-level soft pairwise accuracy (SPA; Thompson et al., 2024, arXiv 2409.09598). Pure, no I/O.

For every pair of systems i < j, a paired permutation test over the segments gives the p-value
that i beats j, once from the gold and once from the metric segment scores; SPA is
``1 - mean over i < j of |p_ij(gold) - p_ij(metric)|``.

The permutations are those of WMT24 / mt-metrics-eval: ``numpy.random.default_rng(4).random(
(1000, n_segments), dtype=float32)`` rounded to 0 / 1 (``rint``), times 2 minus 1, one sign
matrix shared by every system and by gold and metric. With system score = sum of its segment
scores, ``p_ij = mean_r [sum_s sign_rs (x_is - x_js) >= sum_s (x_is - x_js)]``. Subtracting the
observed difference from both sides, the condition is ``sum_{s flipped in r} x_is <=
sum_{s flipped in r} x_js``: each permutation compares the two systems' sums over the segments it
flips, so one matrix product ``flips @ scores`` serves every pair of systems at once.

Exact ties are decided exactly and count as ``>=``. A permutation ties the observed difference
when it flips no segment (the all-plus row) or only segments whose flipped sums agree, which MQM
scores make common (many segments score 0 for both systems). mt-metrics-eval sums in float32 and
leaves those ties to rounding, so its SPA moves by about 1e-4 between runs. Here:

- scores on a decimal grid (every value within 1e-6 of a multiple of ``10**-k`` after scaling,
  ``k <= 6``: MQM's 0.1 steps, written in the files with float noise such as
  ``-5.199999999999999``) are snapped to integers on that grid, whose sums are exact in float64
  (every partial sum stays below 2**53), so decimal-equal sums compare equal;
- other scores are summed in float64 with a rounding-error bound, and the comparisons that fall
  within the bound are re-decided with ``math.fsum``, exact on the float64 values.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from tribunal.eval.meta.statistic import statistic

PERMUTATIONS = 1000
SIGN_SEED = 4
_MAX_GRID_DIGITS = 6
_GRID_TOLERANCE = 1e-6
_UNIT_ROUNDOFF = 2.0 ** -53


@lru_cache(maxsize=8)
def flip_matrix(n_segments: int, permutations: int = PERMUTATIONS, seed: int = SIGN_SEED) -> np.ndarray:
    """(permutations x n_segments) 0/1 float64 matrix: 1 where the shared sign matrix is -1.

    Built exactly as mt-metrics-eval builds its signs (float32 uniforms, ``rint``), read-only.
    """
    uniform = np.random.default_rng(seed).random(size=(permutations, n_segments), dtype=np.float32)
    signs = np.rint(uniform) * 2.0 - 1.0
    flips = (signs < 0).astype(np.float64)
    flips.setflags(write=False)
    return flips


def decimal_grid(scores: np.ndarray) -> np.ndarray | None:
    """The scores as integers on the coarsest decimal grid ``10**-k`` (k <= 6) they lie on, else None.

    Returns None too when a column's absolute sum could reach 2**53 (sums would stop being exact).
    """
    scores = np.asarray(scores, float)
    for digits in range(_MAX_GRID_DIGITS + 1):
        scaled = scores * 10.0 ** digits
        snapped = np.rint(scaled)
        if np.all(np.abs(scaled - snapped) <= _GRID_TOLERANCE):
            return snapped if np.abs(snapped).sum(axis=0).max(initial=0) < 2.0 ** 53 else None
    return None


def pairwise_p_values(scores: np.ndarray, flips: np.ndarray | None = None) -> np.ndarray:
    """(systems x systems) matrix: ``p[i, j]`` = share of permutations in which i is judged >= j.

    ``scores`` is (segments x systems) with no missing value; ``flips`` defaults to
    :func:`flip_matrix` for the number of segments.
    """
    scores = np.asarray(scores, float)
    if scores.ndim != 2:
        raise ValueError("scores must be a (segments x systems) matrix without NaN")
    return pairwise_p_values_many(scores[None], flips)[0]


def pairwise_p_values_many(scores: np.ndarray, flips: np.ndarray | None = None) -> np.ndarray:
    """:func:`pairwise_p_values` of several metrics on the same cells at once: (metrics x systems x systems).

    ``scores`` is (metrics x segments x systems). Each metric gets its own grid (or none), one
    matrix product gives every metric's permutation sums, and each pair of systems is compared
    once per permutation through the difference of its two sums (``a <= b`` exactly when
    ``a - b <= 0`` in floating point); each metric's comparisons are decided as for it alone.
    """
    scores = np.asarray(scores, float)
    if scores.ndim != 3 or np.isnan(scores).any():
        raise ValueError("scores must be (metrics x segments x systems) matrices without NaN")
    n_metrics, n_segments, n_systems = scores.shape
    flips = flip_matrix(n_segments) if flips is None else flips
    grids = [decimal_grid(x) for x in scores]
    values = np.stack([x if g is None else g for x, g in zip(scores, grids)]) if n_metrics else scores
    stacked = values.transpose(1, 0, 2).reshape(n_segments, n_metrics * n_systems)
    sums = (flips @ stacked).reshape(flips.shape[0], n_metrics, n_systems)  # each system's flipped sums
    by_system = np.ascontiguousarray(sums.transpose(2, 0, 1))  # systems x permutations x metrics
    i, j = np.triu_indices(n_systems, k=1)
    diff = by_system[i] - by_system[j]  # system pairs x permutations x metrics: i's sum minus j's
    at_most, at_least = diff <= 0, diff >= 0  # i judged >= j, j judged >= i
    off_grid = [k for k, grid in enumerate(grids) if grid is None]
    if off_grid:
        _decide_close_calls(diff, at_most, at_least, values, flips, off_grid)
    p = np.ones((n_metrics, n_systems, n_systems))
    p[:, i, j] = np.count_nonzero(at_most, axis=1).T / flips.shape[0]
    p[:, j, i] = np.count_nonzero(at_least, axis=1).T / flips.shape[0]
    return p


def _decide_close_calls(diff: np.ndarray, at_most: np.ndarray, at_least: np.ndarray, values: np.ndarray,
                        flips: np.ndarray, metrics: list[int]) -> None:
    """Re-decide with exact sums the comparisons of float64 sums that lie within their rounding bound.

    Only for ``metrics`` (those off any grid); ``diff[pair, r, k]`` is system i's flipped sum minus j's.
    """
    n_segments, n_systems = values.shape[1], values.shape[2]
    i, j = np.triu_indices(n_systems, k=1)
    gamma = n_segments * _UNIT_ROUNDOFF / (1 - n_segments * _UNIT_ROUNDOFF)
    bound = gamma * np.abs(values).sum(axis=1)  # metrics x systems: rounding error of a column's flipped sum
    margin = np.full((len(i), values.shape[0]), -1.0)  # grid metrics: never close (their sums are exact)
    margin[:, metrics] = 2.0 * (bound[metrics][:, i] + bound[metrics][:, j]).T
    for pair, r, metric in zip(*np.nonzero(np.abs(diff) <= margin[:, None, :])):
        flipped = flips[r] > 0
        exact = math.fsum(np.concatenate([values[metric, flipped, i[pair]], -values[metric, flipped, j[pair]]]))
        at_most[pair, r, metric], at_least[pair, r, metric] = exact <= 0.0, exact >= 0.0


def soft_pairwise_accuracy(gold_p: np.ndarray, metric_p: np.ndarray) -> float:
    """``1 - mean over i < j of |gold_p[i, j] - metric_p[i, j]|`` (NaN with fewer than 2 systems)."""
    i, j = np.triu_indices(gold_p.shape[0], k=1)
    if len(i) == 0:
        return float("nan")
    return float(1.0 - np.abs(gold_p[i, j] - metric_p[i, j]).mean())


def spa(gold: np.ndarray, metric: np.ndarray) -> float:
    """SPA of a metric's (segments x systems) scores against the gold ones on the same cells."""
    return soft_pairwise_accuracy(pairwise_p_values(gold), pairwise_p_values(metric))


SPA_BATCH = 32
"""Metrics whose permutation sums one matrix product computes (bounds memory with many metrics)."""


def spa_many(gold_p: np.ndarray, metrics: list[np.ndarray]) -> list[float]:
    """SPA of several metrics' (segments x systems) scores against the gold p-values: one pass per batch.

    Every metric's p-values are decided exactly as for one metric alone (:func:`pairwise_p_values_many`).
    """
    values = []
    for start in range(0, len(metrics), SPA_BATCH):
        metric_p = pairwise_p_values_many(np.stack(metrics[start:start + SPA_BATCH]))
        values += [soft_pairwise_accuracy(gold_p, p) for p in metric_p]
    return values


@statistic("sys_spa", level="system", inputs="spa", resampling="spa", display="sys SPA",
           tables=("wmt24", "wmt25"), many=spa_many)
def spa_against(gold_p: np.ndarray, metric: np.ndarray) -> float:
    """Soft pairwise accuracy (Thompson et al., 2024) of a metric's (segments x systems) scores
    against the gold pairwise p-values (:func:`pairwise_p_values` of the gold scores)."""
    return spa_many(gold_p, [metric])[0]

"""Correlation statistics of the WMT23 Metrics Shared Task (pure functions, no I/O).

References:
- Freitag et al. (2023), "Results of WMT23 Metrics Shared Task: Metrics might be Guilty but
  References are not Innocent" — the task set, system-level pairwise accuracy (Kocmi et al., 2021,
  "To Ship or Not to Ship") and Pearson correlations.
- Deutsch, Foster & Freitag (2023), "Ties Matter: Meta-Evaluating Modern Metrics with Pairwise
  Accuracy and Tie Calibration" — acc_eq with the tie threshold epsilon chosen to maximise it.

NaN marks a missing cell everywhere; a cell counts only where both scores are present.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tribunal.eval.meta.statistic import pooled_ratio, statistic


_CONSTANT = 1e-20
"""A side whose weighted sum of squared deviations is at most this share of its sum of squares is constant."""


def _dot(a: np.ndarray, b: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    if w is None:
        return a @ b if a.ndim == b.ndim == 1 else np.einsum("...i,...i->...", a, b)
    return np.einsum("...i,...i,...i->...", w, a, b)


def pearson_rows(x: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
    """Pearson's r along the last axis, the leading axes broadcast (the one implementation of it).

    ``w`` weighs each item (a bootstrap draw's repeat counts; 0 leaves an item out), broadcast like ``x``
    and ``y``. NaN where fewer than two items weigh anything or a side is constant; no NaN in the inputs.
    Two passes (deviations from the mean, then their products) keep the sums of squares accurate.
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if w is None:
        n = np.asarray(float(np.broadcast_shapes(x.shape, y.shape)[-1]))
        dx, dy = x - x.mean(axis=-1, keepdims=True), y - y.mean(axis=-1, keepdims=True)
    else:
        w = np.asarray(w, dtype=float)
        n = w.sum(axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            dx = x - (_dot(x, np.ones_like(x), w) / n)[..., None]
            dy = y - (_dot(y, np.ones_like(y), w) / n)[..., None]
    sxx, syy = _dot(dx, dx, w), _dot(dy, dy, w)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.asarray(_dot(dx, dy, w) / np.sqrt(sxx * syy), dtype=float)
    constant = (sxx <= _CONSTANT * _dot(x, x, w)) | (syy <= _CONSTANT * _dot(y, y, w)) | (n < 2)
    return np.clip(np.where(constant, np.nan, r), -1.0, 1.0)


@statistic("sys_pearson", level="system", inputs="sys", resampling="pearson", display="sys pearson",
           correlation=True, tables=("wmt23", "run"), key_metric=3)
@statistic("seg_pearson", level="segment", inputs="cells", resampling="pearson", display="seg pearson",
           correlation=True, tables=("wmt23", "run"), key_metric=2)
def pearson(gold: np.ndarray, metric: np.ndarray) -> float:
    """Pearson r over the cells where both scores are present (NaN if fewer than 2, or constant)."""
    gold, metric = np.asarray(gold, float).ravel(), np.asarray(metric, float).ravel()
    keep = ~(np.isnan(gold) | np.isnan(metric))
    if not keep.all():
        gold, metric = gold[keep], metric[keep]
    if len(gold) < 2 or np.ptp(gold) == 0 or np.ptp(metric) == 0:
        return float("nan")
    return float(pearson_rows(gold, metric))


def agreement_indicators(gold: np.ndarray, metric: np.ndarray) -> np.ndarray:
    """For every pair of systems, whether ``sign(gold_i - gold_j) == sign(metric_i - metric_j)``."""
    gold, metric = np.asarray(gold, float), np.asarray(metric, float)
    i, j = np.triu_indices(len(gold), k=1)
    return np.sign(gold[i] - gold[j]) == np.sign(metric[i] - metric[j])


def pairwise_agreement(gold: np.ndarray, metric: np.ndarray) -> tuple[int, int]:
    """System-level pairwise agreement: (pairs ordered alike, all pairs), ties included.

    Divide the sums over language pairs to get the pooled accuracy of WMT23 task 1
    (Kocmi et al., 2021).
    """
    agree = agreement_indicators(gold, metric)
    return int(agree.sum()), len(agree)


@statistic("sys_acc", level="system", inputs="sys", resampling="pooled_accuracy", display="sys accuracy",
           tables=("run",), pooled=("wmt23",), pool=pooled_ratio("agree", "pairs"), extras=("agree", "pairs"),
           undefined="no pair of covered systems")
def system_accuracy(gold: np.ndarray, metric: np.ndarray) -> tuple[float, dict[str, float]]:
    """System-level pairwise accuracy (Kocmi et al., 2021) with its counts ``agree`` and ``pairs``.

    WMT23 task 1 pools it over the language pairs: sum of ``agree`` over sum of ``pairs``.
    """
    agree, pairs = pairwise_agreement(gold, metric)
    return (agree / pairs if pairs else math.nan), {"agree": agree, "pairs": pairs}


_EXACT_LIMIT = 2 ** 62


def _exact_units(per_item: np.ndarray) -> tuple[np.ndarray | None, int]:
    """Each pair's weight 1 / per_item as an integer multiple of 1 / scale (scale = lcm of the
    items' pair counts), so sums of weights are exact; (None, 0) when the integers could overflow."""
    counts = [int(k) for k in np.unique(per_item)]
    scale = math.lcm(*counts) if counts else 1
    if scale * max(len(per_item), 1) >= _EXACT_LIMIT:
        return None, 0
    return scale // per_item, scale


@dataclass(frozen=True)
class PairTable:
    """Every within-item pair of an (items x systems) score matrix, flattened.

    ``row`` is the item, ``weight`` is 1 / (number of pairs of that item), so summing ``weight``
    over correct pairs and dividing by ``n_rows`` gives the mean-over-items accuracy. ``units``
    are the same weights as integers over ``scale`` (None if they would not fit in int64).
    """

    row: np.ndarray
    gold_diff: np.ndarray
    metric_diff: np.ndarray
    weight: np.ndarray
    n_rows: int
    units: np.ndarray | None = None
    scale: int = 0


@dataclass(frozen=True)
class PairIndex:
    """Which within-item system pairs exist, from the gold matrix alone (reusable across metrics)."""

    row: np.ndarray
    left: np.ndarray
    right: np.ndarray
    gold_diff: np.ndarray
    weight: np.ndarray
    n_rows: int
    units: np.ndarray | None = None
    scale: int = 0
    cells: tuple[np.ndarray, np.ndarray] | None = None
    """Flat positions of each pair's two cells in a C-ordered (items x ``width``) matrix."""
    width: int = 0

    @classmethod
    def build(cls, gold: np.ndarray, present: np.ndarray | None = None) -> "PairIndex":
        """Pairs of cells that are both ``present`` (default: both gold scores are non-NaN)."""
        gold = np.asarray(gold, float)
        present = ~np.isnan(gold) if present is None else present
        i, j = np.triu_indices(gold.shape[1], k=1)
        valid = present[:, i] & present[:, j]
        rows, pair = np.nonzero(valid)
        per_row = valid.sum(axis=1)
        left, right = i[pair], j[pair]
        gold_diff = gold[rows, left] - gold[rows, right]
        units, scale = _exact_units(per_row[rows])
        width = gold.shape[1]
        return cls(rows, left, right, gold_diff, 1.0 / per_row[rows], int((per_row > 0).sum()), units, scale,
                   (rows * width + left, rows * width + right), width)

    def table(self, metric: np.ndarray) -> PairTable:
        """The pair table of a metric that has a score on every indexed cell."""
        metric = np.ascontiguousarray(metric, dtype=float)
        if self.cells is not None and metric.shape[1] == self.width:  # flat positions: two plain gathers
            flat = metric.ravel()
            metric_diff = flat.take(self.cells[0]) - flat.take(self.cells[1])
        else:
            metric_diff = metric[self.row, self.left] - metric[self.row, self.right]
        return PairTable(self.row, self.gold_diff, metric_diff, self.weight, self.n_rows, self.units, self.scale)


def within_item_pairs(gold: np.ndarray, metric: np.ndarray) -> PairTable:
    """Enumerate the pairs of systems rated on the same item (row); NaN cells are skipped."""
    gold, metric = np.asarray(gold, float), np.asarray(metric, float)
    return PairIndex.build(gold, ~(np.isnan(gold) | np.isnan(metric))).table(metric)


def pair_correct(pairs: PairTable, epsilon: float) -> np.ndarray:
    """Whether each pair counts as correct for acc_eq at tie threshold ``epsilon``."""
    metric_tie = np.abs(pairs.metric_diff) <= epsilon
    gold_tie = pairs.gold_diff == 0
    same_order = np.sign(pairs.gold_diff) == np.sign(pairs.metric_diff)
    return np.where(gold_tie, metric_tie, ~metric_tie & same_order)


def _by_distance(distance: np.ndarray, direction: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distances sorted ascending with each pair's signed weight (order within equal distances is free).

    With one weight for all pairs (every item has as many pairs: the usual case) the direction
    rides in the lowest bit of the distance's bits (non-negative floats sort like their bit
    patterns, whose top bit is free), so a plain sort replaces an argsort and two gathers.
    """
    if np.ndim(weights) == 0:
        keys = np.sort((distance.view(np.uint64) << np.uint64(1)) | (direction > 0).view(np.uint8))
        signs = (keys & np.uint64(1)).astype(np.int64) * 2 - 1
        return (keys >> np.uint64(1)).view(np.float64), signs * weights
    order = np.argsort(distance)
    return distance[order], (direction * weights)[order]


def tie_calibrated_accuracy(pairs: PairTable) -> tuple[float, float]:
    """acc_eq with tie calibration (Deutsch et al., 2023): ``(accuracy, epsilon)``.

    A metric pair is a tie when ``|difference| <= epsilon``; a pair is correct when metric and
    gold order it alike or both tie. Accuracy is averaged over items; epsilon ranges over 0 and
    every observed |difference| and the smallest maximising one is returned. The weights are
    summed as integers (:attr:`PairTable.units`), so equal accuracies compare equal and the
    smallest maximiser is found exactly.
    """
    if pairs.n_rows == 0:
        return float("nan"), 0.0
    exact = pairs.units is not None
    weights = pairs.units if exact else pairs.weight
    if exact and len(weights) == pairs.scale * pairs.n_rows:  # every item has scale pairs: all units are 1
        weights = weights[0]
    gold_tie = pairs.gold_diff == 0
    concordant = ~gold_tie & (np.sign(pairs.gold_diff) == np.sign(pairs.metric_diff))
    # Raising epsilon past a pair's distance makes a gold-tied pair correct and a concordant one
    # incorrect; a discordant pair stays incorrect, so it never moves the total and is left out.
    direction = gold_tie.view(np.int8) - concordant.view(np.int8)  # +1 tied, -1 concordant, 0 discordant
    moving = direction != 0
    weighted = np.ndim(weights) == 0
    distance, change = _by_distance(np.abs(pairs.metric_diff[moving]), direction[moving],
                                    weights if weighted else weights[moving])
    # epsilon = 0 with no metric tie: every concordant pair correct
    start = weights * np.count_nonzero(concordant) if weighted else weights[concordant].sum()
    run_end = np.flatnonzero(np.append(distance[1:] != distance[:-1], True)) if len(distance) else np.empty(0, int)
    totals, candidates = start + np.cumsum(change)[run_end], distance[run_end]
    if not len(candidates) or candidates[0] > 0:  # epsilon = 0 introduces no ties
        totals = np.concatenate(([start], totals))
        candidates = np.concatenate(([0.0], candidates))
    best = int(np.argmax(totals))
    accuracy = int(totals[best]) / (pairs.scale * pairs.n_rows) if exact else float(totals[best]) / pairs.n_rows
    return accuracy, float(candidates[best])


@statistic("seg_acc_t", level="segment", inputs="pairs", resampling="pair_outcomes", display="seg acc-t",
           tables=("wmt23", "run"), extras=("epsilon",), key_metric=1,
           undefined="no source segment with two covered systems")
@statistic("seg_acc_eq", level="segment", inputs="pairs", resampling="pair_outcomes", display="seg acc_eq",
           tables=("wmt24", "wmt25"), extras=("epsilon",), undefined="no source segment with two covered systems")
def item_grouped_accuracy(index: PairIndex, metric: np.ndarray) -> tuple[float, dict[str, float]]:
    """acc-t / acc_eq grouped by item (Deutsch et al., 2023) of a metric scored on every indexed cell,
    with its tuned tie threshold ``epsilon`` (:func:`tie_calibrated_accuracy`)."""
    accuracy, epsilon = tie_calibrated_accuracy(index.table(metric))
    return accuracy, {"epsilon": epsilon}

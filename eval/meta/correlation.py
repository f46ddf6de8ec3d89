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

from dataclasses import dataclass

import numpy as np


def pearson(gold: np.ndarray, metric: np.ndarray) -> float:
    """Pearson r over the cells where both scores are present (NaN if fewer than 2, or constant)."""
    gold, metric = np.asarray(gold, float).ravel(), np.asarray(metric, float).ravel()
    keep = ~(np.isnan(gold) | np.isnan(metric))
    if keep.sum() < 2 or np.ptp(gold[keep]) == 0 or np.ptp(metric[keep]) == 0:
        return float("nan")
    return float(np.corrcoef(gold[keep], metric[keep])[0, 1])


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


@dataclass(frozen=True)
class PairTable:
    """Every within-item pair of an (items x systems) score matrix, flattened.

    ``row`` is the item, ``weight`` is 1 / (number of pairs of that item), so summing ``weight``
    over correct pairs and dividing by ``n_rows`` gives the mean-over-items accuracy.
    """

    row: np.ndarray
    gold_diff: np.ndarray
    metric_diff: np.ndarray
    weight: np.ndarray
    n_rows: int


@dataclass(frozen=True)
class PairIndex:
    """Which within-item system pairs exist, from the gold matrix alone (reusable across metrics)."""

    row: np.ndarray
    left: np.ndarray
    right: np.ndarray
    gold_diff: np.ndarray
    weight: np.ndarray
    n_rows: int

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
        return cls(rows, left, right, gold_diff, 1.0 / per_row[rows], int((per_row > 0).sum()))

    def table(self, metric: np.ndarray) -> PairTable:
        """The pair table of a metric that has a score on every indexed cell."""
        metric_diff = metric[self.row, self.left] - metric[self.row, self.right]
        return PairTable(self.row, self.gold_diff, metric_diff, self.weight, self.n_rows)


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


def tie_calibrated_accuracy(pairs: PairTable) -> tuple[float, float]:
    """acc_eq with tie calibration (Deutsch et al., 2023): ``(accuracy, epsilon)``.

    A metric pair is a tie when ``|difference| <= epsilon``; a pair is correct when metric and
    gold order it alike or both tie. Accuracy is averaged over items; epsilon ranges over 0 and
    every observed |difference| and the smallest maximising one is returned.
    """
    if pairs.n_rows == 0:
        return float("nan"), 0.0
    distance = np.abs(pairs.metric_diff)
    order = np.argsort(distance)  # order within a run of equal distances does not matter
    distance = distance[order]
    gold_diff, weight = pairs.gold_diff[order], pairs.weight[order]
    gold_tie = gold_diff == 0
    concordant = ~gold_tie & (np.sign(gold_diff) == np.sign(pairs.metric_diff[order]))
    # Raising epsilon past a pair's distance makes a gold-tied pair correct and a concordant
    # one incorrect; evaluate after the last pair of each run of equal distances.
    ties_won = np.cumsum(np.where(gold_tie, weight, 0.0))
    concordant_lost = np.cumsum(np.where(concordant, weight, 0.0))
    run_end = np.flatnonzero(np.append(distance[1:] != distance[:-1], True))
    concordant_total = concordant_lost[-1]
    total = (ties_won[run_end] + concordant_total - concordant_lost[run_end]) / pairs.n_rows
    candidates = distance[run_end]
    if candidates[0] > 0:  # epsilon = 0 introduces no ties
        total = np.concatenate(([concordant_total / pairs.n_rows], total))
        candidates = np.concatenate(([0.0], candidates))
    best = int(np.argmax(total))
    return float(total[best]), float(candidates[best])

"""Run divergence and extra divergence (pure functions over verdicts).

- divergence(run i, run j) = share of matched hypothesis pairs judged "different"
  (pairs the rule left unscored are left out; NaN if none is scored);
- extra divergence of depths (d1, d2) = mean divergence over cross-depth run pairs minus
  mean divergence over same-depth run pairs (pooled over both depths' within-group pairs).

Matching: the workflow refines each fixed opening hypothesis separately, so hypothesis
``slot`` s of one run is matched with slot s of the other (lineage matching).
"""

from __future__ import annotations

import itertools
import math
from typing import Mapping, Sequence

import numpy as np

from tribunal.eval.equiv.hypothesis import Hypothesis
from tribunal.eval.hyp.records import RunRecord

PairKey = tuple[str, str]


def matched_pairs(a: RunRecord, b: RunRecord) -> list[tuple[Hypothesis, Hypothesis]]:
    """Slot-matched hypothesis pairs of two runs (slots missing in either run are skipped)."""
    return [(x, y) for x, y in zip(a.hypotheses, b.hypotheses) if x is not None and y is not None]


def pair_key(a: Hypothesis, b: Hypothesis) -> PairKey:
    return (a.id, b.id) if a.id <= b.id else (b.id, a.id)


def divergence_matrix(runs: Sequence[RunRecord], same: Mapping[PairKey, bool | None]) -> np.ndarray:
    """Symmetric run x run matrix of divergences (diagonal 0)."""
    n = len(runs)
    matrix = np.zeros((n, n))
    for i, j in itertools.combinations(range(n), 2):
        verdicts = [same.get(pair_key(x, y)) for x, y in matched_pairs(runs[i], runs[j])]
        scored = [v for v in verdicts if v is not None]
        matrix[i, j] = matrix[j, i] = (sum(not v for v in scored) / len(scored)) if scored else math.nan
    return matrix


def _mean(values: list[float]) -> float:
    values = [v for v in values if not math.isnan(v)]
    return float(np.mean(values)) if values else math.nan


def cross_mean(matrix: np.ndarray, group_a: Sequence[int], group_b: Sequence[int]) -> float:
    return _mean([matrix[i, j] for i in group_a for j in group_b])


def within_mean(matrix: np.ndarray, group_a: Sequence[int], group_b: Sequence[int]) -> float:
    within = [matrix[i, j] for group in (group_a, group_b) for i, j in itertools.combinations(list(group), 2)]
    return _mean(within)


def extra_divergence(matrix: np.ndarray, group_a: Sequence[int], group_b: Sequence[int]) -> float:
    """Mean cross-group divergence minus mean same-group divergence."""
    return cross_mean(matrix, group_a, group_b) - within_mean(matrix, group_a, group_b)

"""Run divergence and extra divergence (pure functions over verdicts).

- divergence(run i, run j) = share of matched hypothesis pairs judged "different"
  (pairs the rule left unscored are left out; NaN if none is scored);
- extra divergence of depths (d1, d2) = mean divergence over cross-depth run pairs minus
  mean divergence over same-depth run pairs (pooled over both depths' within-group pairs).

Matching (which hypotheses of two runs of one instance are compared), a registry:
- ``lineage`` (default, the paper's): every pair of delivered hypotheses that descend from the
  same opening hypothesis. A run may deliver several hypotheses per opening (alternatives), so
  two runs yield sum over openings of n_a(o) * n_b(o) pairs (the paper: 4,863 pairs over 420
  run pairs, about 11.6 per pair with 5 openings);
- ``slot`` (tribunal before issue 15): one pair per opening, its first delivered hypothesis in each run.
"""

from __future__ import annotations

import itertools
import math
from typing import Callable, Mapping, Sequence

import numpy as np

from tribunal.core.hypothesis import Hypothesis
from tribunal.core.hyp_records import RunRecord

PairKey = tuple[str, str]
Matching = Callable[[RunRecord, RunRecord], list[tuple[Hypothesis, Hypothesis]]]


def lineage_pairs(a: RunRecord, b: RunRecord) -> list[tuple[Hypothesis, Hypothesis]]:
    """Every (x from ``a``, y from ``b``) descending from the same opening hypothesis."""
    return [(x, y) for opening in range(min(a.openings, b.openings))
            for x in a.lineage(opening) for y in b.lineage(opening)]


def slot_pairs(a: RunRecord, b: RunRecord) -> list[tuple[Hypothesis, Hypothesis]]:
    """One pair per opening: the first hypothesis each run delivered for it (openings missing in either are skipped)."""
    pairs = []
    for opening in range(min(a.openings, b.openings)):
        x, y = a.lineage(opening), b.lineage(opening)
        if x and y:
            pairs.append((x[0], y[0]))
    return pairs


MATCHINGS: dict[str, Matching] = {"lineage": lineage_pairs, "slot": slot_pairs}


def matching_rule(name: str) -> Matching:
    if name not in MATCHINGS:
        raise ValueError(f"unknown matching {name!r} (have {', '.join(MATCHINGS)})")
    return MATCHINGS[name]


def pair_key(a: Hypothesis, b: Hypothesis) -> PairKey:
    return (a.id, b.id) if a.id <= b.id else (b.id, a.id)


def divergence_matrix(runs: Sequence[RunRecord], same: Mapping[PairKey, bool | None],
                      matching: Matching = lineage_pairs) -> np.ndarray:
    """Symmetric run x run matrix of divergences (diagonal 0)."""
    n = len(runs)
    matrix = np.zeros((n, n))
    for i, j in itertools.combinations(range(n), 2):
        verdicts = [same.get(pair_key(x, y)) for x, y in matching(runs[i], runs[j])]
        scored = [v for v in verdicts if v is not None]
        matrix[i, j] = matrix[j, i] = (sum(not v for v in scored) / len(scored)) if scored else math.nan
    return matrix


def _mean(values: list) -> float:
    """The mean of the defined values (NaN: none); fractions stay exact (the permutation test's)."""
    values = [v for v in values if not math.isnan(v)]
    return sum(values) / len(values) if values else math.nan


def cross_mean(matrix: np.ndarray, group_a: Sequence[int], group_b: Sequence[int]) -> float:
    return _mean([matrix[i, j] for i in group_a for j in group_b])


def within_mean(matrix: np.ndarray, group_a: Sequence[int], group_b: Sequence[int]) -> float:
    within = [matrix[i, j] for group in (group_a, group_b) for i, j in itertools.combinations(list(group), 2)]
    return _mean(within)


def extra_divergence(matrix: np.ndarray, group_a: Sequence[int], group_b: Sequence[int]) -> float:
    """Mean cross-group divergence minus mean same-group divergence."""
    return cross_mean(matrix, group_a, group_b) - within_mean(matrix, group_a, group_b)

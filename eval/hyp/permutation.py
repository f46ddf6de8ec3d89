"""Exact permutation test of extra divergence between two groups of runs.

With 2n runs (n per depth), the test enumerates every way to split the runs into two
unlabelled groups of n — C(2n, n) / 2 splits, 126 for 10 runs — and computes the statistic
for each. The p-value is the share of splits whose statistic is at least the observed one
(the observed split included, so p >= 1/126). This is the exact randomisation test of
Fisher (1935) / Pitman (1937); no sampling, no seed.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

Statistic = Callable[[np.ndarray, Sequence[int], Sequence[int]], float]


@dataclass(frozen=True)
class PermutationResult:
    observed: float
    p_value: float
    splits: int
    null: tuple[float, ...]


def balanced_splits(n_items: int) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every split of ``range(n_items)`` into two unlabelled halves (item 0 fixed in the first)."""
    if n_items % 2 or n_items < 2:
        raise ValueError(f"need an even number >= 2 of runs to split into halves, got {n_items}")
    half = n_items // 2
    splits = []
    for rest in itertools.combinations(range(1, n_items), half - 1):
        first = (0, *rest)
        splits.append((first, tuple(i for i in range(n_items) if i not in first)))
    return splits


def exact_split_test(matrix: np.ndarray, group_a: Sequence[int], group_b: Sequence[int],
                     statistic: Statistic, tolerance: float = 1e-12) -> PermutationResult:
    """One-sided exact test that ``statistic`` of the observed grouping is unusually large.

    ``matrix`` is a symmetric run x run matrix; ``group_a`` / ``group_b`` index its rows.
    """
    runs = list(group_a) + list(group_b)
    if len(group_a) != len(group_b):
        raise ValueError("the exact split test needs groups of equal size")
    sub = matrix[np.ix_(runs, runs)]
    n = len(group_a)
    observed = statistic(sub, range(n), range(n, 2 * n))
    null = [statistic(sub, a, b) for a, b in balanced_splits(2 * n)]
    if math.isnan(observed):
        return PermutationResult(observed, math.nan, len(null), tuple(null))
    extreme = sum(1 for value in null if not math.isnan(value) and value >= observed - tolerance)
    return PermutationResult(observed, extreme / len(null), len(null), tuple(null))

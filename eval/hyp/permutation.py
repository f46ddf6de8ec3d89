"""Per-instance split distribution of a two-group statistic (the building block of the joint test).

With 2n runs of one instance (n per depth), the exact randomisation distribution of a
statistic is its value on every split of the runs into two unlabelled groups of n:
C(2n, n) / 2 splits, 126 for 10 runs (Fisher 1935; Pitman 1937). Unlabelled splits suffice
because extra divergence is symmetric in its two groups. The observed grouping is split 0.

:func:`exact_split_test` is the test for one instance; several instances are combined by
:func:`tribunal.eval.hyp.joint_permutation.instance_averaged_test`.

The statistic is computed exactly: a divergence is a ratio of integers (pairs judged different
over pairs scored), so each matrix entry is read as the fraction it is (:func:`as_fraction`) and
the statistic is evaluated in fractions; the test compares those, never floating-point sums.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Sequence

import numpy as np

Statistic = Callable[[np.ndarray, Sequence[int], Sequence[int]], float]
MAX_DENOMINATOR = 10 ** 6
"""Largest denominator a divergence is read with: a share of up to a million scored pairs."""


def as_fraction(value: float) -> Fraction | float:
    """The fraction ``value`` is the float of (denominator at most :data:`MAX_DENOMINATOR`); NaN stays NaN.

    Two such fractions differ by at least 1e-12, far more than a float's rounding, so the nearest one
    is the value's own; a float that is not one (or a non-finite one other than NaN) is refused.
    """
    if isinstance(value, Fraction) or math.isnan(value):
        return value
    fraction = Fraction(value).limit_denominator(MAX_DENOMINATOR)
    if float(fraction) != value:
        raise ValueError(f"divergence {value!r} is not a ratio of integers with a denominator up to "
                         f"{MAX_DENOMINATOR}")
    return fraction


@dataclass(frozen=True)
class SplitNull:
    """A statistic on the observed grouping and on every split of the same runs (``values[0]`` = observed).

    ``exact``: the same values as fractions (read from ``values`` when not given); the test uses them.
    """

    observed: float
    values: np.ndarray
    exact: tuple[Fraction | float, ...] | None = None

    def __post_init__(self) -> None:
        if self.exact is None:
            object.__setattr__(self, "exact", tuple(as_fraction(float(v)) for v in self.values))

    @property
    def splits(self) -> int:
        return int(self.values.size)


def balanced_splits(n_items: int) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every split of ``range(n_items)`` into two unlabelled halves (item 0 fixed in the first).

    The first split is ``(0..n-1 | n..2n-1)``: with runs listed group A then group B, the observed one.
    """
    if n_items % 2 or n_items < 2:
        raise ValueError(f"need an even number >= 2 of runs to split into halves, got {n_items}")
    half = n_items // 2
    splits = []
    for rest in itertools.combinations(range(1, n_items), half - 1):
        first = (0, *rest)
        splits.append((first, tuple(i for i in range(n_items) if i not in first)))
    return splits


def split_null(matrix: np.ndarray, group_a: Sequence[int], group_b: Sequence[int],
               statistic: Statistic) -> SplitNull:
    """``statistic`` on every balanced split of the runs in ``group_a`` + ``group_b``.

    ``matrix`` is a symmetric run x run matrix; the groups index its rows and must be equal in size.
    """
    if len(group_a) != len(group_b):
        raise ValueError("the exact split test needs groups of equal size")
    runs = list(group_a) + list(group_b)
    sub = np.vectorize(as_fraction, otypes=[object])(matrix[np.ix_(runs, runs)])
    exact = tuple(statistic(sub, a, b) for a, b in balanced_splits(len(runs)))
    values = np.array([float(v) for v in exact], dtype=float)
    return SplitNull(observed=float(values[0]), values=values, exact=exact)

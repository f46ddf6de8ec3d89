"""Instance-averaged permutation test of extra divergence: exact by convolution, sampled past a size.

Null hypothesis: within each instance the depth labels of its runs are exchangeable. Each
instance is split independently and uniformly over its balanced splits (126 for 10 runs), so
for I instances the instance-averaged statistic T = (1/I) * sum_i x_i has 126^I equally likely
values. The p-value is the share of them at least as extreme as the observed t:

- ``two-sided`` (the paper's test): |T| >= |t|. The null is centred on 0: over the splits of
  2n runs every run pair is cross-group with probability n/(2n-1) and within-group otherwise,
  so the cross and the within mean both have expectation the overall mean divergence (exactly,
  when every run pair is scored);
- ``greater`` (the one-sided test tribunal ran before): T >= t.

Exact computation: the distribution of a sum of independent per-instance statistics is the
convolution of their distributions (outer sums, equal values merged). The instances are
divided into two halves, each half is convolved, and the tail mass is counted by binary search
of one half's support against the other's (meet in the middle): four instances of ten runs
(126^4 = 2.5e8 combinations) take two convolutions of 126^2 = 15,876 values. Every comparison is
exact: a divergence is a ratio of integers (judged-different pairs over scored pairs), so each
statistic is a fraction (:attr:`SplitNull.exact`), and the sums are compared as integer
numerators over the common denominator of all instances, held in int64 limbs
(:mod:`tribunal.eval.hyp.limbs`: the common denominator soon outgrows int64). A floating-point
tolerance would not do: when the number of scored pairs varies between run pairs, distinct sums
can lie 1e-10 apart, closer than any tolerance that absorbs rounding.

Sampling fallback: when one convolution step would exceed ``max_states`` values, ``samples``
joint splits are drawn uniformly (numpy ``default_rng(seed)``, one independent split index per
instance) and p = (1 + hits) / (1 + samples) (Phipson & Smyth 2010: never 0, valid as a test).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import reduce
from typing import Literal, Sequence

import numpy as np

from tribunal.eval.hyp import limbs
from tribunal.eval.hyp.limbs import Wide
from tribunal.eval.hyp.permutation import SplitNull, Statistic, split_null

Alternative = Literal["two-sided", "greater"]
ALTERNATIVES: tuple[str, ...] = ("two-sided", "greater")
DEFAULT_MAX_STATES = 2_500_000  # >= 126**3: six instances of ten runs are always exact
DEFAULT_SAMPLES = 100_000

Distribution = tuple[Wide, np.ndarray]  # sorted distinct numerators, their counts (float64, exact < 2**53)


@dataclass(frozen=True)
class JointTestResult:
    observed: float  # instance-averaged statistic on the observed groupings
    p_value: float
    alternative: str
    method: str  # "exact" or "sampled" ("none" when no instance could be tested)
    instances: int  # instances in the test
    dropped: int  # instances left out (undefined statistic on the observed or on some split)
    combinations: int  # equally likely joint splits (product of the instances' split counts)
    samples: int = 0
    seed: int | None = None


class _TooLarge(Exception):
    """A convolution step would exceed ``max_states`` values."""


def _numerators(nulls: Sequence[SplitNull]) -> tuple[list[list[int]], int]:
    """Each instance's exact values as integer numerators over one common denominator (returned)."""
    denominator = math.lcm(*(f.denominator for null in nulls for f in null.exact))
    return [[f.numerator * (denominator // f.denominator) for f in null.exact] for null in nulls], denominator


def _distribution(values: Wide) -> Distribution:
    return limbs.unique(values, np.ones(values.size))


def _convolve(left: Distribution, right: Distribution, max_states: int) -> Distribution:
    if left[0].size * right[0].size > max_states:
        raise _TooLarge
    return limbs.unique(limbs.add_outer(left[0], right[0]), np.multiply.outer(left[1], right[1]).ravel())


def _halves(dists: Sequence[Distribution]) -> tuple[list[Distribution], list[Distribution]]:
    """Two groups of instances whose joint supports are about equally large (greedy on log size)."""
    left: list[Distribution] = []
    right: list[Distribution] = []
    size = {"left": 0.0, "right": 0.0}
    for dist in sorted(dists, key=lambda d: -d[0].size):
        side = "left" if size["left"] <= size["right"] else "right"
        (left if side == "left" else right).append(dist)
        size[side] += math.log(dist[0].size)
    return left, right


def _exact_hits_share(dists: Sequence[Distribution], observed_sum: int, denominator: int, alternative: str,
                      max_states: int) -> float:
    unit: Distribution = (limbs.wide([0], denominator, len(dists[0][0].limbs)), np.ones(1))
    left_half, right_half = _halves(dists)
    (left, left_counts) = reduce(lambda a, b: _convolve(a, b, max_states), left_half, unit)
    right, right_counts = reduce(lambda a, b: _convolve(a, b, max_states), right_half, unit)
    if alternative == "two-sided":
        bound = abs(observed_sum)
        if bound == 0:
            return 1.0
        hits = (limbs.weight_at_least(right, right_counts, limbs.minus(bound, denominator, left))
                + limbs.weight_at_most(right, right_counts, limbs.minus(-bound, denominator, left)))
    else:
        hits = limbs.weight_at_least(right, right_counts, limbs.minus(observed_sum, denominator, left))
    return float(np.dot(left_counts, hits) / (left_counts.sum() * right_counts.sum()))


def _sampled_share(numerators: Sequence[Wide], observed_sum: int, denominator: int, alternative: str,
                   samples: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    width = len(numerators[0].limbs)
    sums = limbs.wide([0] * samples, denominator, width)
    for values in numerators:
        sums = limbs.add(sums, values[rng.integers(0, values.size, size=samples)])
    distinct, counts = limbs.unique(sums, np.ones(samples))
    if alternative == "two-sided" and observed_sum == 0:
        return 1.0
    bound = abs(observed_sum) if alternative == "two-sided" else observed_sum
    hits = limbs.weight_at_least(distinct, counts, limbs.wide([bound], denominator, width))[0]
    if alternative == "two-sided":
        hits += limbs.weight_at_most(distinct, counts, limbs.wide([-bound], denominator, width))[0]
    return (1 + int(hits)) / (1 + samples)


def instance_averaged_test(nulls: Sequence[SplitNull], alternative: str = "two-sided",
                           max_states: int = DEFAULT_MAX_STATES, samples: int = DEFAULT_SAMPLES,
                           seed: int = 0) -> JointTestResult:
    """Permutation p-value of the instance-averaged statistic (see the module docstring).

    An instance whose statistic is undefined (NaN: no scored pair) on its observed grouping or on
    any split is left out and counted in ``dropped``.
    """
    if alternative not in ALTERNATIVES:
        raise ValueError(f"unknown alternative {alternative!r} (have {', '.join(ALTERNATIVES)})")
    usable = [n for n in nulls if math.isfinite(n.observed) and bool(np.all(np.isfinite(n.values)))]
    dropped = len(nulls) - len(usable)
    if not usable:
        return JointTestResult(math.nan, math.nan, alternative, "none", 0, dropped, 0)
    numerators, denominator = _numerators(usable)
    observed_sum = sum(values[0] for values in numerators)  # split 0 is the observed grouping
    width = limbs.limbs_for(2 * len(usable) * max(abs(v) for values in numerators for v in values))
    wide = [limbs.wide(values, denominator, width) for values in numerators]
    combinations = math.prod(n.splits for n in usable)
    observed = float(Fraction(observed_sum, denominator * len(usable)))
    try:
        p_value = _exact_hits_share([_distribution(v) for v in wide], observed_sum, denominator, alternative,
                                    max_states)
    except _TooLarge:
        p_value = _sampled_share(wide, observed_sum, denominator, alternative, samples, seed)
        return JointTestResult(observed, p_value, alternative, "sampled", len(usable), dropped, combinations,
                               samples, seed)
    return JointTestResult(observed, p_value, alternative, "exact", len(usable), dropped, combinations)


def exact_split_test(matrix: np.ndarray, group_a: Sequence[int], group_b: Sequence[int], statistic: Statistic,
                     alternative: str = "two-sided"):
    """The exact split test of one instance (a joint test over one instance: p >= 1/126 for 10 runs)."""
    return instance_averaged_test([split_null(matrix, group_a, group_b, statistic)], alternative=alternative)

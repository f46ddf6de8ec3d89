"""Exact rationals in int64 limbs: sums, sorting and tail counts against Python integers."""

import random

import numpy as np
import pytest

from tribunal.eval.hyp import limbs


def brute_at_least(values, weights, query):
    return sum(w for v, w in zip(values, weights) if v >= query)


@pytest.mark.parametrize("denominator", [7, 2 ** 70 + 1, 3 ** 100])
def test_sums_sorting_and_tail_counts_are_exact(denominator):
    rng = random.Random(denominator % 1000)
    base = [rng.randrange(-denominator, denominator) for _ in range(40)]
    # near-ties: values one unit apart over a huge denominator have identical floats
    numerators = base + [v + 1 for v in base[:10]] + base[:5]
    width = limbs.limbs_for(4 * max(abs(v) for v in numerators) + 4)
    a = limbs.wide(numerators, denominator, width)
    total = limbs.add_outer(a, a)
    exact = [x + y for x in numerators for y in numerators]
    distinct, counts = limbs.unique(total, np.ones(total.size))
    expected = sorted(set(exact))
    assert distinct.size == len(expected)
    assert [sum(int(limb[i]) << (limbs.SHIFT * k) for k, limb in enumerate(distinct.limbs))
            for i in range(distinct.size)] == expected
    assert counts.tolist() == [exact.count(v) for v in expected]
    queries = [expected[len(expected) // 3], expected[0] - 1, expected[-1], expected[-1] + 1, 0]
    q = limbs.minus(0, denominator, limbs.wide([-v for v in queries], denominator, width))
    at_least = limbs.weight_at_least(distinct, counts, q)
    at_most = limbs.weight_at_most(distinct, counts, q)
    assert at_least.tolist() == [brute_at_least(exact, [1] * len(exact), v) for v in queries]
    assert at_most.tolist() == [sum(1 for x in exact if x <= v) for v in queries]


def test_adding_two_values_carries_between_limbs():
    width = 2
    a = limbs.wide([2 ** 62 - 1, -1, -(2 ** 62)], 1, width)
    b = limbs.wide([1, 1, -1], 1, width)
    s = limbs.add(a, b)
    values = [(int(s.limbs[1][i]) << limbs.SHIFT) + int(s.limbs[0][i]) for i in range(3)]
    assert values == [2 ** 62, 0, -(2 ** 62) - 1]

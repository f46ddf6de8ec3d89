"""Split permutation tests: one instance by hand, four instances jointly by hand, brute force, sampling."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from tribunal.eval.hyp.divergence import extra_divergence
from tribunal.eval.hyp.joint_permutation import exact_split_test, instance_averaged_test
from tribunal.eval.hyp.permutation import SplitNull, as_fraction, balanced_splits, split_null


def _matrix(entries, n):
    m = np.zeros((n, n))
    for (i, j), v in entries.items():
        m[i, j] = m[j, i] = v
    return m


# 4 runs, 3 splits. By hand:
#   {0,1}|{2,3}: cross (.5+.6+.7+.4)/4 = .55,  within (.1+.3)/2 = .20 -> extra  .35
#   {0,2}|{1,3}: cross (.1+.6+.7+.3)/4 = .425, within (.5+.4)/2 = .45 -> extra -.025
#   {0,3}|{1,2}: cross (.1+.5+.4+.3)/4 = .325, within (.6+.7)/2 = .65 -> extra -.325
HAND = _matrix({(0, 1): .1, (2, 3): .3, (0, 2): .5, (0, 3): .6, (1, 2): .7, (1, 3): .4}, 4)


def _types_matrix(types, delta):
    """Runs diverge by ``delta`` when their types differ, else 0."""
    return np.array([[delta * (a != b) for b in types] for a in types])


def test_hand_computed_four_run_case():
    null = split_null(HAND, [0, 1], [2, 3], extra_divergence)
    assert null.splits == 3 and null.observed == pytest.approx(0.35)
    assert sorted(null.values) == pytest.approx([-0.325, -0.025, 0.35])
    result = exact_split_test(HAND, [0, 1], [2, 3], extra_divergence)
    assert result.p_value == pytest.approx(1 / 3)  # only .35 has |x| >= .35 (|-.325| < .35)
    assert result.method == "exact" and result.combinations == 3


def test_hand_computed_middle_split_two_sided_and_one_sided():
    # observed -.025: every split has |x| >= .025 (two-sided 3/3); .35 and -.025 are >= -.025 (one-sided 2/3)
    assert exact_split_test(HAND, [0, 2], [1, 3], extra_divergence).p_value == pytest.approx(1.0)
    assert exact_split_test(HAND, [0, 2], [1, 3], extra_divergence, "greater").p_value == pytest.approx(2 / 3)


def test_a_strongly_negative_extra_is_significant_two_sided_but_not_one_sided():
    # Runs of the same depth disagree (1), runs of different depths agree (0): observed extra -1.
    # With k of one depth's runs in the first group the extra is -1 (k=5 or 0: 1 split), -.28
    # (k=4 or 1: 20 + 5 splits) or +.08 (k=3 or 2: 60 + 40 splits); only the observed has |x| >= 1.
    types = [0] * 5 + [1] * 5
    same_depth_disagree = 1 - _types_matrix(types, 1.0) - np.eye(10)
    result = exact_split_test(same_depth_disagree, range(5), range(5, 10), extra_divergence)
    assert result.observed == pytest.approx(-1.0)
    assert result.p_value == pytest.approx(1 / 126)
    one_sided = exact_split_test(same_depth_disagree, range(5), range(5, 10), extra_divergence, "greater")
    assert one_sided.p_value == pytest.approx(1.0)  # the earlier one-sided test: every split is >= -1


def test_split_values_of_two_types_of_runs_match_the_hand_formula():
    # Type-X and type-Y runs diverge by d. A split putting k X runs and 5-k Y runs in the group of
    # run 0 has cross mean d(k^2 + (5-k)^2)/25 and within mean d*2k(5-k)/20, so its extra is
    # d (k=5), .28d (k=4 or 1) or -.08d (k=3 or 2); there are 1, 20+5 and 60+40 such splits.
    null = split_null(_types_matrix([0] * 5 + [1] * 5, 1 / 3), range(5), range(5, 10), extra_divergence)
    values, counts = np.unique(np.round(null.values * 3, 9), return_counts=True)
    assert values.tolist() == pytest.approx([-0.08, 0.28, 1.0]) and counts.tolist() == [100, 25, 1]
    assert null.values.mean() == pytest.approx(0.0)  # the null is centred on 0


def test_four_instances_exact_two_sided_p_by_hand():
    """Four instances of ten runs (types X/Y as above, d = 1/3), with k = 5, 5, 4, 3 X runs in depth 0.

    Observed extras in units of d: 1, 1, .28, -.08; sum 2.2. Each instance takes 1 (1 split), .28
    (25 splits) or -.08 (100 splits). Sums >= 2.2 (no sum is <= -2.2: the smallest is -.32):
      four at 1:                              1 combination
      three at 1, one at .28 or -.08:         4 * (25 + 100)             =     500
      two at 1, two at .28:                   6 * 25 * 25                =   3,750
      two at 1, one at .28, one at -.08:      6 * 2 * 25 * 100           =  30,000  (sum exactly 2.2: a tie)
      two at 1, two at -.08 (1.84):           not extreme
    p = 34,251 / 126^4 = 34,251 / 252,047,376 = 1.3589e-4.
    """
    nulls = [split_null(_types_matrix(["X"] * k + ["Y"] * (5 - k) + ["X"] * (5 - k) + ["Y"] * k, 1 / 3),
                        range(5), range(5, 10), extra_divergence) for k in (5, 5, 4, 3)]
    result = instance_averaged_test(nulls)
    assert result.combinations == 126 ** 4 == 252_047_376
    assert result.method == "exact" and result.instances == 4
    assert result.observed == pytest.approx((1 + 1 + 0.28 - 0.08) / 4 / 3)
    assert result.p_value == pytest.approx(34_251 / 126 ** 4, rel=1e-12)
    # one-sided: the same count (nothing is extreme on the negative side here)
    assert instance_averaged_test(nulls, "greater").p_value == pytest.approx(34_251 / 126 ** 4, rel=1e-12)


def test_p_below_one_in_ten_thousand_is_reachable_with_four_instances():
    perfect = split_null(_types_matrix([0] * 5 + [1] * 5, 1 / 3), range(5), range(5, 10), extra_divergence)
    alone = instance_averaged_test([perfect])
    assert alone.p_value == pytest.approx(1 / 126)  # one instance cannot go below 1/126 = 0.0079
    joint = instance_averaged_test([perfect] * 4)
    assert joint.p_value == pytest.approx(1 / 126 ** 4) and joint.p_value < 1e-4  # 3.97e-9


def test_exact_joint_test_matches_brute_force_enumeration():
    rng = np.random.default_rng(7)
    nulls = []
    for _ in range(3):
        m = np.triu(rng.integers(0, 4, (6, 6)) / 4, 1)
        nulls.append(split_null(m + m.T, range(3), range(3, 6), extra_divergence))
    observed = sum(n.observed for n in nulls)
    sums = np.array([sum(c) for c in itertools.product(*[n.values for n in nulls])])
    assert sums.size == 10 ** 3
    two_sided = np.mean(np.abs(sums) >= abs(observed) - 1e-9)
    greater = np.mean(sums >= observed - 1e-9)
    assert instance_averaged_test(nulls).p_value == pytest.approx(two_sided, rel=1e-12)
    assert instance_averaged_test(nulls, "greater").p_value == pytest.approx(greater, rel=1e-12)


def test_sampling_fallback_past_the_size_limit_is_seeded_and_never_zero():
    perfect = split_null(_types_matrix([0] * 5 + [1] * 5, 1 / 3), range(5), range(5, 10), extra_divergence)
    mixed = split_null(_types_matrix([0] * 4 + [1] * 2 + [0] + [1] * 3, 1 / 3), range(5), range(5, 10),
                       extra_divergence)
    exact = instance_averaged_test([perfect, mixed, mixed])
    sampled = instance_averaged_test([perfect, mixed, mixed], max_states=5, samples=20_000, seed=3)
    assert exact.method == "exact" and sampled.method == "sampled" and sampled.samples == 20_000
    assert sampled.p_value == pytest.approx(exact.p_value, abs=4 * math.sqrt(exact.p_value / 20_000) + 1e-4)
    assert sampled == instance_averaged_test([perfect, mixed, mixed], max_states=5, samples=20_000, seed=3)
    floor = instance_averaged_test([perfect] * 6, max_states=5, samples=1000)
    assert floor.p_value == pytest.approx(1 / 1001)  # (1 + 0 hits) / (1 + samples), never 0


def test_instances_without_a_defined_statistic_are_dropped():
    perfect = split_null(_types_matrix([0] * 5 + [1] * 5, 1.0), range(5), range(5, 10), extra_divergence)
    undefined = SplitNull(observed=math.nan, values=np.full(126, math.nan))
    result = instance_averaged_test([perfect, undefined])
    assert result.instances == 1 and result.dropped == 1 and result.p_value == pytest.approx(1 / 126)
    assert math.isnan(instance_averaged_test([undefined]).p_value)


def test_no_structure_gives_p_one():
    matrix = np.full((10, 10), 0.4)
    np.fill_diagonal(matrix, 0)
    result = exact_split_test(matrix, range(5), range(5, 10), extra_divergence)
    assert result.observed == pytest.approx(0.0) and result.p_value == 1.0


def test_splits_are_unlabelled_cover_every_item_and_start_with_the_observed():
    assert len(balanced_splits(10)) == 126 == math.comb(10, 5) // 2
    splits = balanced_splits(6)
    assert len(splits) == 10 and splits[0] == ((0, 1, 2), (3, 4, 5))
    assert all(sorted(a + b) == list(range(6)) and 0 in a for a, b in splits)
    assert len({frozenset(a) for a, _ in splits}) == 10


def test_unequal_groups_odd_counts_and_unknown_alternatives_are_refused():
    with pytest.raises(ValueError):
        balanced_splits(5)
    with pytest.raises(ValueError):
        split_null(HAND, [0], [1, 2], extra_divergence)
    with pytest.raises(ValueError, match="alternative"):
        exact_split_test(HAND, [0, 1], [2, 3], extra_divergence, "less")


# Two instances of ten runs whose run pairs have different numbers of scored pairs (denominators 3 to 45),
# upper triangles row by row: (0,1), (0,2), ..., (8,9). Their joint sums include one 3.6e-10 below the
# observed |t|: a tolerance of 1e-9 counted it as extreme (p = 13,924 / 15,876 = 0.877047).
TWO_INSTANCES = (
    "8/31 0 7/20 2/3 1/3 7/15 0 1/14 0 19/37 17/26 17/32 2/13 8/37 0 5/26 1/30 8/35 23/33 1/14 1 2/3 6/35 4/9 "
    "1/16 5/39 4/9 6/11 1/3 2/9 23/25 5/19 11/21 1/5 9/11 7/15 4/21 1/3 1/9 25/28 3/35 10/41 1 29/31 15/19",
    "11/13 8/29 10/11 22/45 3/16 6/7 1/6 17/18 7/8 0 3/4 9/20 8/11 11/19 5/24 1/2 13/23 1/2 1/33 11/19 3/7 "
    "3/14 1/10 9/16 0 2/3 1 1/4 8/27 12/23 28/33 4/9 7/8 10/13 4/9 14/43 11/15 2/3 27/38 35/39 5/28 3/11 "
    "27/38 1/9 0",
)


def _fraction_matrix(text):
    values = iter(Fraction(v) for v in text.split())
    return _matrix({pair: float(next(values)) for pair in itertools.combinations(range(10), 2)}, 10)


def test_two_instances_with_distinct_sums_1e_10_apart_get_the_exact_p():
    nulls = [split_null(_fraction_matrix(text), range(5), range(5, 10), extra_divergence) for text in TWO_INSTANCES]
    exact = [[Fraction(v) for v in null.exact] for null in nulls]
    observed = abs(exact[0][0] + exact[1][0])
    sums = [abs(x + y) for x in exact[0] for y in exact[1]]
    assert sum(s >= observed for s in sums) == 13_923  # brute force over the 126^2 splits, in fractions
    nearest_below = max(s for s in sums if s < observed)
    assert 0 < observed - nearest_below < Fraction(1, 10 ** 9)  # what a 1e-9 tolerance miscounted
    result = instance_averaged_test(nulls)
    assert result.method == "exact" and result.p_value == 221 / 252  # 0.876984..., not 0.877047
    assert result.observed == float((exact[0][0] + exact[1][0]) / 2)
    sampled = instance_averaged_test(nulls, max_states=5, samples=20_000, seed=1)
    assert sampled.method == "sampled" and abs(sampled.p_value - 221 / 252) < 0.01


def test_divergences_are_read_as_the_fractions_they_are():
    assert as_fraction(2 / 7) == Fraction(2, 7) and as_fraction(17 / 45) == Fraction(17, 45)
    assert as_fraction(123_456 / 999_983) == Fraction(123_456, 999_983)
    assert math.isnan(as_fraction(math.nan))
    with pytest.raises(ValueError, match="ratio of integers"):
        as_fraction(math.pi)


def test_huge_common_denominators_fall_back_to_python_integers():
    # Denominators whose least common multiple exceeds int64: the sums are still exact.
    primes = [999_983, 999_979, 999_961, 999_959]
    nulls = [SplitNull(observed=1 / p, values=np.array([1 / p, -1 / p, 0.0])) for p in primes]
    result = instance_averaged_test(nulls)
    # |sum| >= sum(1/p) only when every instance takes its observed value or every one its negative
    assert result.p_value == pytest.approx(2 / 3 ** 4, rel=1e-12)

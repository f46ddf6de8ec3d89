import itertools

import numpy as np
import pytest

from tribunal.eval.meta.correlation import (
    pairwise_agreement,
    pearson,
    tie_calibrated_accuracy,
    within_item_pairs,
)


def brute_force_acc_t(gold, metric):
    """Direct transcription of the definition: try every candidate epsilon."""
    candidates = {0.0}
    rows = []
    for g, m in zip(gold, metric):
        keep = [(a, b) for a, b in zip(g, m) if not (np.isnan(a) or np.isnan(b))]
        pairs = [(g1 - g2, m1 - m2) for (g1, m1), (g2, m2) in itertools.combinations(keep, 2)]
        if pairs:
            rows.append(pairs)
            candidates |= {abs(dm) for _, dm in pairs}
    best = (-1.0, None)
    for eps in sorted(candidates):
        accs = []
        for pairs in rows:
            correct = sum((dg == 0 and abs(dm) <= eps) or (dg != 0 and abs(dm) > eps and np.sign(dg) == np.sign(dm))
                          for dg, dm in pairs)
            accs.append(correct / len(pairs))
        if np.mean(accs) > best[0] + 1e-12:
            best = (float(np.mean(accs)), eps)
    return best


def test_acc_t_hand_computed():
    # one item, three systems: gold ties B and C; metric nearly ties them
    gold = np.array([[-5.0, 0.0, 0.0]])
    metric = np.array([[0.1, 0.5, 0.52]])
    # eps=0: pairs AB, AC concordant (2/3); BC not tied by metric -> 2/3.
    # eps=0.02: BC becomes a tie -> 3/3; AB (0.4) and AC (0.42) stay ordered.
    acc, eps = tie_calibrated_accuracy(within_item_pairs(gold, metric))
    assert acc == pytest.approx(1.0)
    assert eps == pytest.approx(0.02)


def test_acc_t_matches_brute_force_with_ties_and_missing_cells():
    rng = np.random.default_rng(0)
    gold = rng.integers(-3, 1, size=(30, 6)).astype(float)
    metric = np.round(rng.normal(size=(30, 6)), 1)
    gold[rng.random(gold.shape) < 0.15] = np.nan
    gold[4, :5] = np.nan  # an item with one rated cell contributes no pairs
    acc, eps = tie_calibrated_accuracy(within_item_pairs(gold, metric))
    ref_acc, ref_eps = brute_force_acc_t(gold, metric)
    assert acc == pytest.approx(ref_acc, abs=1e-12)
    assert eps == pytest.approx(ref_eps)


def test_acc_t_no_pairs_is_nan():
    acc, _ = tie_calibrated_accuracy(within_item_pairs(np.array([[1.0, np.nan]]), np.array([[1.0, 2.0]])))
    assert np.isnan(acc)


def test_pairwise_agreement_counts_ties_as_agreement():
    gold = np.array([1.0, 2.0, 2.0])
    metric = np.array([0.1, 0.5, 0.5])
    assert pairwise_agreement(gold, metric) == (3, 3)
    assert pairwise_agreement(gold, np.array([0.5, 0.1, 0.2])) == (0, 3)
    assert pairwise_agreement(gold, np.array([0.1, 0.2, 0.1])) == (1, 3)


def test_pearson_skips_missing_and_degenerate():
    assert pearson(np.array([1, 2, np.nan, 4.0]), np.array([2, 4, 5, 8.0])) == pytest.approx(1.0)
    assert np.isnan(pearson(np.array([1.0, 1.0]), np.array([1.0, 2.0])))


def test_acc_t_exact_sums_with_items_of_different_sizes_match_brute_force():
    """Items with 2, 3 and 4 rated systems: weights 1, 1/3, 1/6 summed as integers (lcm 6)."""
    rng = np.random.default_rng(3)
    for _ in range(20):
        gold = rng.integers(-2, 1, size=(12, 4)).astype(float)
        metric = np.round(rng.normal(size=(12, 4)), 1)
        gold[0, 2:] = gold[1, 3] = np.nan
        table = within_item_pairs(gold, metric)
        assert table.scale == 6 and table.units is not None
        acc, eps = tie_calibrated_accuracy(table)
        ref_acc, ref_eps = brute_force_acc_t(gold, metric)
        assert acc == pytest.approx(ref_acc, abs=1e-12) and eps == pytest.approx(ref_eps)


def test_acc_t_equal_accuracies_pick_the_smallest_epsilon():
    """Gold ties A and B and puts C below. Metric distances: AB 0.1 (gold tie), AC 0.1 and BC 0.2
    (concordant). epsilon 0: AC, BC right (2/3); 0.1: AB, BC right (2/3); 0.2: AB only (1/3).
    The two equal maxima are equal as integer sums, and the smaller epsilon, 0, is returned."""
    gold = np.array([[0.0, 0.0, -1.0]])
    metric = np.array([[0.0, 0.1, -0.1]])
    acc, eps = tie_calibrated_accuracy(within_item_pairs(gold, metric))
    assert (acc, eps) == (2 / 3, 0.0)

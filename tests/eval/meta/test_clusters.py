"""Significance clusters: rank assignment, vectorised draws against plain loops, known clusters."""

from pathlib import Path

import numpy as np
import pytest
from scipy.stats import pearsonr

from tribunal.data.mtme import LanguagePair
from tribunal.eval.meta.clusters import assign_ranks, ranking, significance
from tribunal.eval.meta.correlation import PairIndex, pair_correct
from tribunal.eval.meta.protocols import PROTOCOLS
from tribunal.eval.meta.resampling import (
    accuracy_nulls,
    pair_outcome_nulls,
    pearson_nulls,
    spa_nulls,
    zscore,
)
from tribunal.eval.meta.spa import pairwise_p_values, spa
from tribunal.eval.meta.table import meta_eval_table
from tests.conftest import write


def test_assign_ranks_walks_down_the_order():
    # 0 beats 2 (p = .01), so 2 opens cluster 2; then 2, the only member of cluster 2, beats 3.
    p = np.array([[0, .30, .01, .00],
                  [0, 0, .20, .00],
                  [0, 0, 0, .04],
                  [0, 0, 0, 0]])
    assert assign_ranks(p) == [1, 1, 2, 3]
    # at alpha .005 only 0 -> 3 is significant: 3 alone forms cluster 2
    assert assign_ranks(p, alpha=0.005) == [1, 1, 1, 2]
    assert assign_ranks(np.array([[0, .05], [0, 0]])) == [1, 2]  # p <= alpha, as mt-metrics-eval


def test_ranking_reads_p_values_in_both_orientations():
    # null[k, 0, 1] = stat(hybrid_0) - stat(hybrid_1); metric 1 is better, so its draws are the negation.
    null = np.full((4, 2, 2), np.nan)
    null[:, 0, 1] = [-0.5, 0.1, -0.2, -0.3]
    result = ranking("col", ["a", "b"], np.array([0.1, 0.4]), null)
    assert result.metrics == ["b", "a"]
    assert result.p_values[0, 1] == 0.5  # -null = (.5, -.1, .2, .3) reaches 0.4 - 0.1 twice (a tie counts)
    assert result.ranks == [1, 1]


def test_pearson_draws_equal_a_plain_loop():
    rng = np.random.default_rng(1)
    gold = rng.normal(size=30)
    values = gold + rng.normal(size=(3, 30)) * np.array([[0.5], [1.0], [2.0]])
    null = pearson_nulls(gold, values, 25, np.random.default_rng(9))
    swaps = np.random.default_rng(9).random((25, 30)) < 0.5
    z = zscore(values)
    for a, b in [(0, 1), (0, 2), (1, 2)]:
        expected = [pearsonr(gold, np.where(w, z[b], z[a]))[0] - pearsonr(gold, np.where(w, z[a], z[b]))[0]
                    for w in swaps]
        assert null[:, a, b] == pytest.approx(expected, abs=1e-12)


def test_pooled_accuracy_draws_equal_a_plain_loop():
    rng = np.random.default_rng(2)
    golds = [rng.normal(size=5), rng.normal(size=4)]
    values = [g + rng.normal(size=(3, len(g))) for g in golds]
    null = accuracy_nulls(golds, values, 20, np.random.default_rng(5))
    swaps = np.random.default_rng(5).random((20, 9)) < 0.5
    z = zscore(np.concatenate(values, axis=1))

    def accuracy(scores):
        agree = total = 0
        for offset, gold in ((0, golds[0]), (5, golds[1])):
            for i in range(len(gold)):
                for j in range(i + 1, len(gold)):
                    agree += np.sign(gold[i] - gold[j]) == np.sign(scores[offset + i] - scores[offset + j])
                    total += 1
        return agree / total

    for a, b in [(0, 1), (1, 2)]:
        expected = [accuracy(np.where(w, z[b], z[a])) - accuracy(np.where(w, z[a], z[b])) for w in swaps]
        assert null[:, a, b] == pytest.approx(expected, abs=1e-12)


def test_pair_outcome_draws_equal_a_plain_loop():
    rng = np.random.default_rng(3)
    gold = np.round(rng.normal(size=(6, 4)), 0)
    gold[0, 3] = np.nan
    metrics = [gold + rng.normal(scale=s, size=gold.shape) for s in (0.3, 1.0)]
    index = PairIndex.build(gold)
    epsilons = [0.2, 0.5]
    null = pair_outcome_nulls(index, metrics, epsilons, 15, np.random.default_rng(4))
    swaps = np.random.default_rng(4).random((15, len(index.row))) < 0.5
    correct = [pair_correct(index.table(m), e) for m, e in zip(metrics, epsilons)]

    def accuracy(outcomes):  # mean over items of the share of correct pairs
        return np.mean([outcomes[index.row == r].mean() for r in np.unique(index.row)])

    expected = [accuracy(np.where(w, correct[1], correct[0])) - accuracy(np.where(w, correct[0], correct[1]))
                for w in swaps]
    assert null[:, 0, 1] == pytest.approx(expected, abs=1e-12)


def test_spa_draws_equal_a_plain_loop():
    rng = np.random.default_rng(4)
    gold = np.round(rng.normal(size=(12, 4)), 1)
    values = np.stack([gold + rng.normal(scale=s, size=gold.shape) for s in (0.2, 1.0, 3.0)])
    gold_p = pairwise_p_values(gold)
    null = spa_nulls(gold_p, values, 6, np.random.default_rng(8), block=4)
    swaps = np.random.default_rng(8).random((6, 12, 4)) < 0.5
    z = zscore(values.reshape(3, -1)).reshape(values.shape)
    for a, b in [(0, 1), (0, 2), (1, 2)]:
        expected = [spa(gold, np.where(w, z[b], z[a])) - spa(gold, np.where(w, z[a], z[b])) for w in swaps]
        assert null[:, a, b] == pytest.approx(expected, abs=1e-12)


def build_known_clusters(root: Path, n_systems: int = 12, n_segments: int = 60) -> Path:
    """Five metrics in three clusters by construction: two near-perfect twins, two noisy twins, noise.

    Each twin differs from its sibling in two cells by 1e-9, which no test can call significant;
    the clusters are far apart on every task.
    """
    rng = np.random.default_rng(0)
    systems = [f"S{i}" for i in range(n_systems)]
    gold = np.round(np.linspace(-6, 0, n_systems) + rng.normal(scale=2.0, size=(n_segments, n_systems)), 1)
    good = gold + rng.normal(scale=0.3, size=gold.shape)
    mid = gold + rng.normal(scale=3.0, size=gold.shape) + rng.normal(scale=1.5, size=n_systems)
    nudge = np.zeros_like(gold)
    nudge[3, 2], nudge[7, 5] = 1e-9, -1e-9
    metrics = {"good1": good, "good2": good + nudge, "mid1": mid, "mid2": mid - nudge, "bad": rng.normal(size=gold.shape)}

    def seg_lines(scores):
        return "".join(f"{s}\t{float(scores[i, k])!r}\n" for k, s in enumerate(systems) for i in range(n_segments))

    def sys_lines(scores):
        return "".join(f"{s}\t{float(scores[:, k].mean())!r}\n" for k, s in enumerate(systems))

    write(root / "sources" / "en-de.txt", "".join(f"s{i}\n" for i in range(n_segments)))
    write(root / "human-scores" / "en-de.mqm.seg.score", seg_lines(gold))
    write(root / "human-scores" / "en-de.mqm.sys.score", sys_lines(gold))
    for name, scores in metrics.items():
        write(root / "metric-scores" / "en-de" / f"{name}-refA.seg.score", seg_lines(scores))
        write(root / "metric-scores" / "en-de" / f"{name}-refA.sys.score", sys_lines(scores))
    return root


@pytest.mark.parametrize("protocol", ["wmt23", "wmt24"])
def test_constructed_case_has_the_known_clusters(tmp_path, protocol):
    root = build_known_clusters(tmp_path / "known")
    result = meta_eval_table({"en-de": LanguagePair(root, "en-de")}, None, PROTOCOLS[protocol])
    rankings = significance(result, 300, seed=11)
    assert set(rankings) == {t.column for t in result.tasks} | {"avg_corr"}
    for column, ranked in rankings.items():
        ranks = ranked.rank_of()
        assert (ranks["good1"], ranks["good2"], ranks["mid1"], ranks["mid2"], ranks["bad"]) == (1, 1, 2, 2, 3), column
        twins = ranked.metrics.index("good1"), ranked.metrics.index("good2")
        assert ranked.p_values[min(twins), max(twins)] > 0.4, column


def test_significance_is_seeded(tmp_path):
    root = build_known_clusters(tmp_path / "known", n_segments=20)
    result = meta_eval_table({"en-de": LanguagePair(root, "en-de")}, None, PROTOCOLS["wmt23"])
    first, again = significance(result, 50, seed=3), significance(result, 50, seed=3)
    other = significance(result, 50, seed=4)
    assert all(np.array_equal(first[c].p_values, again[c].p_values) for c in first)
    assert any(not np.array_equal(first[c].p_values, other[c].p_values) for c in first)

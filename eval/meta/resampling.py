"""Paired permutation draws for every pair of metrics at once, one function per kind of task.

The test is WMT's (mt-metrics-eval's ``PermutationSigDiff``, the PERM-BOTH test of Deutsch et al.,
2021): under the null hypothesis two metrics are exchangeable, so each resampling unit takes the
other metric's value with probability 1/2; the statistic of both hybrids is recomputed and the
p-value of "a beats b" is the share of draws whose hybrid difference reaches the observed one.
Units and scaling per task, as in mt-metrics-eval:

- system-level Pearson and pooled pairwise accuracy: systems (accuracy pools every language
  pair's systems); segment-level Pearson: rated cells; SPA: rated cells. Metric scores are
  z-scored first (over all units of the task) so that values of two metrics can be mixed.
- acc-t / acc_eq: within-item system pairs, each metric scored at its own tie threshold, tuned
  once on the full data and kept fixed (mt-metrics-eval's ``perm_test="pairs"``): the swapped
  unit is a pair's outcome (correct or not), not a score, so two metrics whose thresholds live on
  different scales are compared as they are reported, and no threshold is re-tuned per draw
  (re-tuning would test a different statistic, tie calibration's selection included, at the
  cost of a full calibration per draw and metric pair).

Every draw uses one swap pattern for all metric pairs (seeded), and every statistic is linear in
the swap pattern or read from a small table, so a block of draws is a matrix product:
``draws x units @ units x metrics``. Unlike mt-metrics-eval no early stopping is applied: every
p-value uses all K draws.

Each function returns ``null[k, a, b] = stat(hybrid_a) - stat(hybrid_b)`` for a < b, where
hybrid_a takes metric b's value on the units swapped in draw k (NaN below the diagonal).
"""

from __future__ import annotations

import numpy as np

from tribunal.eval.meta.correlation import PairIndex, pair_correct
from tribunal.eval.meta.spa import flip_matrix

_BLOCK_CELLS = 2_000_000  # swap-pattern entries per block: bounds memory on large unit sets


def zscore(values: np.ndarray) -> np.ndarray:
    """Standard scores over the last axis (population std; constant rows become 0)."""
    values = np.asarray(values, float)
    centred = values - values.mean(axis=-1, keepdims=True)
    std = values.std(axis=-1, keepdims=True)
    return np.divide(centred, std, out=np.zeros_like(centred), where=std > 0)


def _blocks(samples: int, units: int) -> list[int]:
    size = max(1, min(samples, _BLOCK_CELLS // max(units, 1)))
    return [min(size, samples - start) for start in range(0, samples, size)]


def _swaps(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return (rng.random(shape) < 0.5).astype(np.float64)


def _assemble(stat_a: np.ndarray, stat_b: np.ndarray, n_metrics: int) -> np.ndarray:
    """(K, P) hybrid statistics of the pairs a < b -> (K, M, M) differences."""
    a, b = np.triu_indices(n_metrics, k=1)
    null = np.full((stat_a.shape[0], n_metrics, n_metrics), np.nan)
    null[:, a, b] = stat_a - stat_b
    return null


def pearson_nulls(gold: np.ndarray, values: np.ndarray, samples: int, rng: np.random.Generator) -> np.ndarray:
    """Pearson r against fixed ``gold`` (units), metrics' ``values`` (metrics x units)."""
    values = zscore(values)
    n_metrics, n = values.shape
    g = gold - gold.mean()
    g = g / np.linalg.norm(g)
    features = np.concatenate([values, values ** 2, values * g]).T  # units x 3M: sum, sum of squares, dot with gold
    totals = features.sum(axis=0)
    a, b = np.triu_indices(n_metrics, k=1)
    parts = []
    for size in _blocks(samples, n):
        swapped = _swaps(rng, (size, n)) @ features  # sums over the swapped units

        def hybrid_r(keep: np.ndarray, take: np.ndarray) -> np.ndarray:
            s1, s2, dot = (totals[o + keep] - swapped[:, o + keep] + swapped[:, o + take]
                           for o in (0, n_metrics, 2 * n_metrics))
            return dot / np.sqrt(np.maximum(s2 - s1 ** 2 / n, 0.0))

        parts.append((hybrid_r(a, b), hybrid_r(b, a)))
    return _assemble(np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]), n_metrics)


def accuracy_nulls(golds: list[np.ndarray], values: list[np.ndarray], samples: int,
                   rng: np.random.Generator) -> np.ndarray:
    """Pairwise accuracy pooled over language pairs: per pair of systems within each pair.

    ``golds[l]`` are the gold system scores of language pair l, ``values[l]`` the metrics'
    (metrics x systems); units are the systems of all pairs, z-scored jointly per metric.
    """
    n_metrics = values[0].shape[0]
    pooled = zscore(np.concatenate(values, axis=1))
    first, second, gold_sign, offset = [], [], [], 0
    for gold in golds:
        i, j = np.triu_indices(len(gold), k=1)
        first.append(i + offset)
        second.append(j + offset)
        gold_sign.append(np.sign(gold[i] - gold[j]))
        offset += len(gold)
    p, q, gold_sign = np.concatenate(first), np.concatenate(second), np.concatenate(gold_sign)
    a, b = np.triu_indices(n_metrics, k=1)
    # agree[c][pair, system pair]: hybrid_a agrees with gold when (swap p, swap q) = bits of c.
    agree = []
    for code in range(4):
        at_p = np.where(code >> 1, pooled[b][:, p], pooled[a][:, p])
        at_q = np.where(code & 1, pooled[b][:, q], pooled[a][:, q])
        agree.append(np.sign(at_p - at_q) == gold_sign)
    table_a = np.stack(agree, axis=-1).reshape(len(a), -1).T.astype(float) / len(p)  # (pairs*4) x P
    table_b = np.stack(agree[::-1], axis=-1).reshape(len(a), -1).T.astype(float) / len(p)  # both bits flipped
    parts = []
    for size in _blocks(samples, offset):
        swaps = rng.random((size, offset)) < 0.5
        code = 2 * swaps[:, p] + swaps[:, q]
        onehot = (code[:, :, None] == np.arange(4)).reshape(size, -1).astype(float)
        parts.append((onehot @ table_a, onehot @ table_b))
    return _assemble(np.concatenate([x[0] for x in parts]), np.concatenate([x[1] for x in parts]), n_metrics)


def pair_outcome_nulls(index: PairIndex, metrics: list[np.ndarray], epsilons: list[float], samples: int,
                       rng: np.random.Generator) -> np.ndarray:
    """acc-t / acc_eq: within-item pairs swap their outcome at each metric's fixed tie threshold."""
    weight = index.weight / index.n_rows
    correct = np.stack([pair_correct(index.table(m), e) for m, e in zip(metrics, epsilons)]).astype(float)
    features = (correct * weight).T  # pairs x M
    stat = correct @ weight
    n_metrics = len(metrics)
    a, b = np.triu_indices(n_metrics, k=1)
    parts = []
    for size in _blocks(samples, len(weight)):
        swapped = _swaps(rng, (size, len(weight))) @ features
        parts.append((stat[a] - swapped[:, a] + swapped[:, b], stat[b] - swapped[:, b] + swapped[:, a]))
    return _assemble(np.concatenate([x[0] for x in parts]), np.concatenate([x[1] for x in parts]), n_metrics)


def _hybrid_spa(sums: np.ndarray, gold_pairs: np.ndarray) -> np.ndarray:
    """SPA of hybrids from their flipped sums (hybrids x systems x permutations, permutations contiguous)."""
    n_systems, permutations = sums.shape[1], sums.shape[2]
    at_most = np.empty((sums.shape[0], len(gold_pairs)), dtype=np.int64)
    done = 0
    for s in range(n_systems - 1):  # system s against every later one, all permutations at once
        below = sums[:, s:s + 1] <= sums[:, s + 1:]
        at_most[:, done:done + n_systems - s - 1] = below.view(np.uint8).sum(axis=-1, dtype=np.int64)
        done += n_systems - s - 1
    return 1.0 - np.abs(gold_pairs - at_most / permutations).mean(axis=-1)  # p in triu order of system pairs


def spa_nulls(gold_p: np.ndarray, values: np.ndarray, samples: int, rng: np.random.Generator,
              block: int = 4) -> np.ndarray:
    """SPA: rated cells (segments x systems) swap between metrics; ``values`` is (metrics x segments x systems).

    The flipped sums of a hybrid are linear in the swap pattern: ``flips @ hybrid_a = flips @ x_a
    + flips @ (w * x_b) - flips @ (w * x_a)``, so one product per draw serves every metric pair;
    the hybrids of metric a with every later metric are then one broadcast sum each, and their
    permutation counts one comparison per system (no per-pair gathers).
    """
    n_metrics, n_segments, n_systems = values.shape
    values = zscore(values.reshape(n_metrics, -1)).reshape(values.shape)
    flips = flip_matrix(n_segments)
    permutations = flips.shape[0]
    stacked = values.transpose(1, 0, 2).reshape(n_segments, -1)  # segments x (metrics * systems)
    base = np.ascontiguousarray((flips @ stacked).T.reshape(n_metrics, n_systems, permutations))
    i, j = np.triu_indices(n_systems, k=1)
    gold_pairs = gold_p[i, j]
    stat_a, stat_b = [], []
    for start in range(0, samples, block):
        size = min(block, samples - start)
        swaps = rng.random((size, n_segments, n_systems)) < 0.5
        weighted = stacked[None] * np.tile(swaps, (1, 1, n_metrics))  # draws x segments x (metrics * systems)
        moved = flips @ weighted.transpose(1, 0, 2).reshape(n_segments, -1)  # permutations x (draws * M * systems)
        moved = np.ascontiguousarray(moved.T.reshape(size, n_metrics, n_systems, permutations))
        for draw in moved:
            # hybrid a of pair (a, b) = base[a] - draw[a] + draw[b]; hybrid b = base[b] - draw[b] + draw[a]
            kept = base - draw
            stat_a.append(np.concatenate([np.empty(0)] + [_hybrid_spa(kept[a] + draw[a + 1:], gold_pairs)
                                                          for a in range(n_metrics - 1)]))
            stat_b.append(np.concatenate([np.empty(0)] + [_hybrid_spa(kept[a + 1:] + draw[a], gold_pairs)
                                                          for a in range(n_metrics - 1)]))
    return _assemble(np.array(stat_a), np.array(stat_b), n_metrics)

"""Order-respecting alignment of two causal chains from their step-by-step similarities (pure).

Given ``sim[i, j]``, the similarity of step ``i`` of chain A and step ``j`` of chain B, the
alignment matches every step of the shorter chain to a distinct step of the longer one, in
order (a monotone matching, as in sequence alignment), maximising first the weakest matched
similarity and then the total. Steps of the longer chain left over are *extra steps*.

The score of the pair is its weakest link: the lowest matched similarity, or 0 when a step
has no counterpart (an extra step; with ``allow_extra`` only an extra *initiating* step
counts, since further detail along or after the route does not change the mechanism). The
score does not depend on any threshold, so one threshold sweep covers every verdict:
"same" exactly when ``score >= threshold``.

For two chains of equal length the monotone matching is the step-by-step diagonal; a chain
whose steps reappear in another order then scores low, and :func:`reordered` tells that case
apart from a replaced step (an order-free matching would clear the threshold).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment


@dataclass(frozen=True)
class ChainAlignment:
    matched: tuple[tuple[int, int, float], ...]  # (step of A, step of B, similarity), in order
    extra_a: tuple[int, ...]  # steps of A with no counterpart in B
    extra_b: tuple[int, ...]
    score: float  # the weakest link (see the module docstring)
    weakest: tuple[int | None, int | None, float]  # (step of A or None, step of B or None, similarity)


def _monotone_matching(sim: np.ndarray) -> list[tuple[int, int]]:
    """Match every row of ``sim`` (rows <= columns) to a distinct column, in order; best bottleneck, then sum."""
    n, m = sim.shape
    worst = (-np.inf, -np.inf)
    best = [[worst] * (m + 1) for _ in range(n + 1)]
    take = [[False] * (m + 1) for _ in range(n + 1)]
    for j in range(m + 1):
        best[0][j] = (np.inf, 0.0)
    for i in range(1, n + 1):
        for j in range(i, m + 1):
            skip = best[i][j - 1] if j - 1 >= i else worst
            prev = best[i - 1][j - 1]
            match = (min(prev[0], sim[i - 1, j - 1]), prev[1] + sim[i - 1, j - 1]) if prev != worst else worst
            take[i][j] = match >= skip
            best[i][j] = match if take[i][j] else skip
    pairs, i, j = [], n, m
    while i > 0:
        if take[i][j]:
            pairs.append((i - 1, j - 1))
            i -= 1
        j -= 1
    return pairs[::-1]


def align_chains(sim: np.ndarray, allow_extra: bool = False) -> ChainAlignment:
    """The order-respecting alignment of chain A (rows) and chain B (columns), and its score."""
    sim = np.clip(np.asarray(sim, dtype=float), 0.0, 1.0)
    n, m = sim.shape
    if n == 0 or m == 0:
        raise ValueError("cannot align an empty chain")
    flipped = n > m
    pairs = _monotone_matching(sim.T if flipped else sim)
    if flipped:
        pairs = [(i, j) for j, i in pairs]
    matched = tuple((i, j, float(sim[i, j])) for i, j in pairs)
    extra_a = tuple(sorted(set(range(n)) - {i for i, _, _ in matched}))
    extra_b = tuple(sorted(set(range(m)) - {j for _, j, _ in matched}))
    blocking_a = tuple(i for i in extra_a if i == 0 or not allow_extra)
    blocking_b = tuple(j for j in extra_b if j == 0 or not allow_extra)
    if blocking_a or blocking_b:
        weakest = (blocking_a[0], None, 0.0) if blocking_a else (None, blocking_b[0], 0.0)
    else:
        weakest = min(matched, key=lambda t: t[2])
    return ChainAlignment(matched, extra_a, extra_b, weakest[2], weakest)


def reordered(sim: np.ndarray, threshold: float) -> bool:
    """Would an order-free matching clear ``threshold`` where the order-respecting one does not?

    True when the chains hold the same steps in a different order (the optimal one-to-one
    matching, Hungarian algorithm, matches every step of the shorter chain at or above the
    threshold but not monotonically).
    """
    sim = np.clip(np.asarray(sim, dtype=float), 0.0, 1.0)
    rows, cols = linear_sum_assignment(sim, maximize=True)
    if min(sim.shape) == 0 or np.min(sim[rows, cols]) < threshold:
        return False
    order = cols[np.argsort(rows)]
    return bool(np.any(np.diff(order) < 0))

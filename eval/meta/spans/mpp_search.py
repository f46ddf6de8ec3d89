"""The optimal one-to-one matching of MPP: the matching with the highest segment F, found exactly.

MPP's precision and recall earn different credits from a pair (``c * o / len(p)`` and
``c * o / len(g)``, :mod:`~tribunal.eval.meta.spans.measures`), and F is their harmonic mean, so no
sum of pair values is maximised by the best matching: the authors' code (since d42f003) searches
every one-to-one matching of the pairs with positive credit for the highest segment F, ties broken
by the larger P + R, then P, then R, then more pairs, then the lexicographically smaller pair list
(values within 1e-12 being equal). tribunal finds the same matching by a different exact search:

- predicted spans are taken in order of position; a *state* is the set of gold spans already used
  that a later predicted span could still take (gold spans nobody later can take are forgotten), so
  the states stay few where spans overlap locally;
- in each state only the Pareto-best ``(precision credit, recall credit)`` points are kept: F, P + R,
  P and R all grow with both credits, so a point beaten on both can never win;
- at the end every point left is ranked by the key above.

The search is exact; its cost grows with the number of points kept, which is bounded by
:data:`MAX_POINTS` (a segment beyond it raises :class:`ValueError` rather than run for hours; the
authors' search has no bound and would be slower still there).
"""

from __future__ import annotations

from typing import Sequence

TOLERANCE = 1e-12
MAX_POINTS = 200_000
"""Most (state, point) entries the search keeps at once; hundreds of mutually overlapping spans exceed it."""

Candidate = tuple[int, float, float]
"""(gold index, precision credit, recall credit) of one predicted span's possible pair."""
Point = tuple[float, float, tuple[tuple[int, int], ...]]
"""(precision credit sum, recall credit sum, the sorted pairs that earn them)."""


def _key(point: Point, n_p: float, n_g: float) -> tuple[float, float, float, float, int]:
    p = point[0] / n_p if n_p else 1.0
    r = point[1] / n_g if n_g else 1.0
    f = 2 * p * r / (p + r) if p + r > 0 else 0.0
    return f, p + r, p, r, len(point[2])


def _better(a: Point, b: Point, n_p: float, n_g: float) -> bool:
    for x, y in zip(_key(a, n_p, n_g), _key(b, n_p, n_g)):
        if x > y + TOLERANCE:
            return True
        if x < y - TOLERANCE:
            return False
    return a[2] < b[2]


def _pareto(points: list[Point]) -> list[Point]:
    """The points no other point beats on both credits (equal credits: more pairs, then the smaller list)."""
    points.sort(key=lambda q: (-q[0], -q[1], -len(q[2]), q[2]))
    kept: list[Point] = []
    best_recall = -1.0
    for q in points:
        if q[1] > best_recall:
            kept.append(q)
            best_recall = q[1]
    return kept


def best_mpp_pairs(candidates: Sequence[Sequence[Candidate]], order: Sequence[int], n_p: float,
                   n_g: float) -> list[tuple[int, int]]:
    """Pairs of the F-best one-to-one matching; ``candidates[i]``: predicted ``i``'s possible pairs,
    ``order``: the predicted spans in order of position; ``n_p``, ``n_g``: the segment's counts."""
    last_use: dict[int, int] = {}
    for step, i in enumerate(order):
        for j, _, _ in candidates[i]:
            last_use[j] = step
    states: dict[frozenset[int], list[Point]] = {frozenset(): [(0.0, 0.0, ())]}
    for step, i in enumerate(order):
        if not candidates[i]:
            continue
        grown: dict[frozenset[int], list[Point]] = {}
        for used, points in states.items():
            keep = frozenset(j for j in used if last_use[j] > step)
            grown.setdefault(keep, []).extend(points)
            for j, credit_p, credit_r in candidates[i]:
                if j in used:
                    continue
                state = keep | {j} if last_use[j] > step else keep
                grown.setdefault(state, []).extend(
                    (sp + credit_p, sr + credit_r, tuple(sorted(pairs + ((i, j),)))) for sp, sr, pairs in points)
        states = {used: _pareto(points) for used, points in grown.items()}
        if sum(len(points) for points in states.values()) > MAX_POINTS:
            raise ValueError(f"too many overlapping spans in one segment for the exact optimal MPP matching "
                             f"(more than {MAX_POINTS} partial matchings kept); use --assignment greedy")
    best: Point | None = None
    for points in states.values():
        for point in points:
            if best is None or _better(point, best, n_p, n_g):
                best = point
    return list(best[2]) if best else []

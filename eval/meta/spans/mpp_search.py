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
- a point that could not reach the best F found so far even if every later predicted span added its
  largest credits is dropped (the bound of the authors' branch and bound);
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


def _f(sp: float, sr: float, n_p: float, n_g: float) -> float:
    return _key((sp, sr, ()), n_p, n_g)[0]


def _suffix_bounds(candidates: Sequence[Sequence[Candidate]], order: Sequence[int]) -> list[tuple[float, float]]:
    """Per step, the most precision and recall credit the predicted spans from that step on could add."""
    bounds = [(0.0, 0.0)] * (len(order) + 1)
    for step in range(len(order) - 1, -1, -1):
        row = candidates[order[step]]
        bounds[step] = (bounds[step + 1][0] + max((c[1] for c in row), default=0.0),
                        bounds[step + 1][1] + max((c[2] for c in row), default=0.0))
    return bounds


def _extend(states: dict[frozenset[int], list[Point]], i: int, row: Sequence[Candidate], step: int,
            last_use: dict[int, int]) -> dict[frozenset[int], list[Point]]:
    """Every state after predicted span ``i`` is left unmatched or takes one of its free gold spans."""
    grown: dict[frozenset[int], list[Point]] = {}
    for used, points in states.items():
        keep = frozenset(j for j in used if last_use[j] > step)
        grown.setdefault(keep, []).extend(points)
        for j, credit_p, credit_r in row:
            if j in used:
                continue
            state = keep | {j} if last_use[j] > step else keep
            grown.setdefault(state, []).extend(
                (sp + credit_p, sr + credit_r, tuple(sorted(pairs + ((i, j),)))) for sp, sr, pairs in points)
    return grown


def _greedy_floor(candidates: Sequence[Sequence[Candidate]], n_p: float, n_g: float) -> float:
    """F of two quick matchings (greedy by a pair's own harmonic credit, and by its share of P + R): a first floor."""
    best = 0.0
    for rank in (lambda c: c[1] * c[2] / (c[1] + c[2]), lambda c: c[1] / (n_p or 1.0) + c[2] / (n_g or 1.0)):
        ranked = sorted(((-rank(c), i, c) for i, row in enumerate(candidates) for c in row), key=lambda t: t[:2])
        used_p, used_g, sp, sr = set(), set(), 0.0, 0.0
        for _, i, (j, credit_p, credit_r) in ranked:
            if i not in used_p and j not in used_g:
                used_p.add(i)
                used_g.add(j)
                sp, sr = sp + credit_p, sr + credit_r
        best = max(best, _f(sp, sr, n_p, n_g))
    return best


def best_mpp_pairs(candidates: Sequence[Sequence[Candidate]], order: Sequence[int], n_p: float,
                   n_g: float) -> list[tuple[int, int]]:
    """Pairs of the F-best one-to-one matching; ``candidates[i]``: predicted ``i``'s possible pairs,
    ``order``: the predicted spans in order of position; ``n_p``, ``n_g``: the segment's counts.

    Every point kept is itself a matching (the spans still to come left unmatched), so the best F
    among them (and that of two quick greedy matchings) is a floor; a point that could not reach it
    even if each later predicted span added its largest credits (the authors' bound) is dropped."""
    taken = [(i, j) for i in order for j, _, _ in candidates[i]]
    if len({i for i, _ in taken}) == len(taken) == len({j for _, j in taken}):
        return sorted(taken)  # no span has two candidates: taking every pair beats every other matching
    last_use = {j: step for step, i in enumerate(order) for j, _, _ in candidates[i]}
    bounds = _suffix_bounds(candidates, order)
    states: dict[frozenset[int], list[Point]] = {frozenset(): [(0.0, 0.0, ())]}
    floor = _greedy_floor(candidates, n_p, n_g)
    for step, i in enumerate(order):
        if not candidates[i]:
            continue
        grown = _extend(states, i, candidates[i], step, last_use)
        add_p, add_r = bounds[step + 1]
        floor = max([floor] + [_f(q[0], q[1], n_p, n_g) for points in grown.values() for q in points])
        states = {}
        for used, points in grown.items():
            alive = [q for q in _pareto(points) if _f(q[0] + add_p, q[1] + add_r, n_p, n_g) >= floor - TOLERANCE]
            if alive:
                states[used] = alive
        if sum(len(points) for points in states.values()) > MAX_POINTS:
            raise ValueError(f"too many overlapping spans in one segment for the exact optimal MPP matching "
                             f"(more than {MAX_POINTS} partial matchings kept); use --assignment greedy")
    best: Point | None = None
    for points in states.values():
        for point in points:
            if best is None or _better(point, best, n_p, n_g):
                best = point
    return list(best[2]) if best else []

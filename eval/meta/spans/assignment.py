"""A maximum-weight one-to-one assignment for the small matrices of span matching, without scipy.

Span matching solves one assignment per segment, a few spans a side. :func:`scipy.optimize.linear_sum_assignment`
does it, but importing ``scipy.optimize`` costs about 0.4 s of CPU, more than the whole span
evaluation of a 200-item run. This is the same method, the shortest augmenting path algorithm of
Crouse (2016), in the form scipy implements it (rows augmented in order, the unvisited columns scanned
from the last, ties between equally short paths broken towards a free column), so that it picks the
same assignment when several are optimal; a test checks that against scipy on random matrices full
of ties.

    Crouse D.F., On implementing 2D rectangular assignment algorithms, IEEE Transactions on
    Aerospace and Electronic Systems 52(4), 2016, pp. 1679-1696, doi:10.1109/TAES.2016.140952.
"""

from __future__ import annotations

import math
from typing import Sequence

INF = math.inf


def _shortest_path(cost: list[list[float]], u: list[float], v: list[float], row: int, state: dict) -> tuple[int, float]:
    """(the free column the shortest augmenting path from ``row`` ends at, its length); fills ``state``."""
    n_cols = len(cost[0])
    path, row4col, dist = state["path"], state["row4col"], state["dist"]
    seen_rows, seen_cols = state["seen_rows"], state["seen_cols"]
    for k in range(n_cols):
        dist[k] = INF
        seen_cols[k] = False
    for k in range(len(cost)):
        seen_rows[k] = False
    remaining = list(range(n_cols - 1, -1, -1))
    reach, sink, i = 0.0, -1, row
    while sink == -1:
        seen_rows[i] = True
        best, best_at = INF, -1
        for at, j in enumerate(remaining):
            reduced = reach + cost[i][j] - u[i] - v[j]
            if reduced < dist[j]:
                path[j], dist[j] = i, reduced
            if dist[j] < best or (dist[j] == best and row4col[j] == -1):
                best, best_at = dist[j], at
        reach = best
        if reach == INF:
            raise ValueError("cost matrix is infeasible")
        j = remaining[best_at]
        if row4col[j] == -1:
            sink = j
        else:
            i = row4col[j]
        seen_cols[j] = True
        remaining[best_at] = remaining[-1]
        remaining.pop()
    return sink, reach


def max_assignment(matrix: Sequence[Sequence[float]]) -> list[tuple[int, int]]:
    """(row, column) pairs of a maximum-sum assignment of ``matrix`` (finite values), rows ascending."""
    n_rows = len(matrix)
    n_cols = len(matrix[0]) if n_rows else 0
    if n_rows == 0 or n_cols == 0:
        return []
    transposed = n_cols < n_rows
    cost = [[-float(matrix[r][c]) for r in range(n_rows)] for c in range(n_cols)] if transposed else \
        [[-float(x) for x in r] for r in matrix]
    rows, cols = len(cost), len(cost[0])
    u, v = [0.0] * rows, [0.0] * cols
    col4row, row4col = [-1] * rows, [-1] * cols
    state = {"path": [-1] * cols, "row4col": row4col, "dist": [INF] * cols,
             "seen_rows": [False] * rows, "seen_cols": [False] * cols}
    for current in range(rows):
        sink, reach = _shortest_path(cost, u, v, current, state)
        dist, seen_rows, seen_cols, path = state["dist"], state["seen_rows"], state["seen_cols"], state["path"]
        u[current] += reach
        for i in range(rows):
            if seen_rows[i] and i != current:
                u[i] += reach - dist[col4row[i]]
        for j in range(cols):
            if seen_cols[j]:
                v[j] -= reach - dist[j]
        j = sink
        while True:
            i = path[j]
            row4col[j] = i
            col4row[i], j = j, col4row[i]
            if i == current:
                break
    if transposed:
        return sorted((col4row[c], c) for c in range(rows))
    return [(r, col4row[r]) for r in range(rows)]

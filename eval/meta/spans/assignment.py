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


def _shortest_path(cost: list[list[float]], u: list[float], v: list[float], row4col: list[int],
                   row: int) -> tuple[int, float, list[int], list[float], list[bool], list[bool]]:
    """The shortest augmenting path from ``row``: (its free end column, its length, the predecessor row
    of each column reached, each column's distance, the rows and the columns it visited)."""
    n_rows, n_cols = len(cost), len(cost[0])
    path, dist = [-1] * n_cols, [INF] * n_cols
    seen_rows, seen_cols = [False] * n_rows, [False] * n_cols
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
    return sink, reach, path, dist, seen_rows, seen_cols


def max_assignment(matrix: Sequence[Sequence[float]]) -> list[tuple[int, int]]:
    """(row, column) pairs of a maximum-sum assignment of ``matrix`` (finite values), rows ascending."""
    n_rows = len(matrix)
    n_cols = len(matrix[0]) if n_rows else 0
    if n_rows == 0 or n_cols == 0:
        return []
    transposed = n_cols < n_rows  # rows <= columns, as the method needs; the pairs are turned back at the end
    cost = [[-float(matrix[r][c]) for r in range(n_rows)] for c in range(n_cols)] if transposed else \
        [[-float(x) for x in r] for r in matrix]
    rows, cols = len(cost), len(cost[0])
    u, v = [0.0] * rows, [0.0] * cols
    col4row, row4col = [-1] * rows, [-1] * cols
    for current in range(rows):
        sink, reach, path, dist, seen_rows, seen_cols = _shortest_path(cost, u, v, row4col, current)
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

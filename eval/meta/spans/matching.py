"""One-to-one matching of predicted to gold spans: optimal assignment or greedy.

``optimal`` solves the assignment problem (the method of :func:`scipy.optimize.linear_sum_assignment`,
``maximize=True``, in :mod:`tribunal.eval.meta.spans.assignment`) over the pair objective, as
Perrella et al. (2026) do; pairs whose objective is 0 are not matches. ``greedy`` takes pairs in decreasing objective order while both spans are free
(ties: lower predicted index, then lower gold index), as their greedy option does; unlike their
code, which ranks every measure's greedy pairs by Dice overlap, tribunal ranks by the chosen
measure's own objective, so greedy and optimal differ only in the search.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from tribunal.eval.meta.spans.assignment import max_assignment
from tribunal.eval.meta.spans.measures import PairValue
from tribunal.core.spans import Span


def objective_matrix(predicted: Sequence[Span], gold: Sequence[Span], value: PairValue) -> np.ndarray:
    """``m[i, j]``: objective of pairing predicted ``i`` with gold ``j`` (0 across sides)."""
    m = np.zeros((len(predicted), len(gold)))
    for i, p in enumerate(predicted):
        for j, g in enumerate(gold):
            if p.side == g.side:
                m[i, j] = value(p, g)
    return m


def optimal_pairs(m: np.ndarray) -> list[tuple[int, int]]:
    """Pairs of a maximum-objective one-to-one assignment (only pairs with a positive objective)."""
    if m.size == 0:
        return []
    pairs = max_assignment(m.tolist())  # scipy's method and tie-breaking, without loading scipy (assignment.py)
    return [(i, j) for i, j in pairs if m[i, j] > 0]


def greedy_pairs(m: np.ndarray) -> list[tuple[int, int]]:
    """Pairs taken best-first while both sides are free."""
    order = sorted(((-m[i, j], i, j) for i in range(m.shape[0]) for j in range(m.shape[1]) if m[i, j] > 0))
    used_p, used_g, pairs = set(), set(), []
    for _, i, j in order:
        if i not in used_p and j not in used_g:
            used_p.add(i)
            used_g.add(j)
            pairs.append((i, j))
    return pairs


ASSIGNMENTS = {"optimal": optimal_pairs, "greedy": greedy_pairs}

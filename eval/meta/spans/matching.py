"""One-to-one matching of predicted to gold spans: optimal or greedy, as the authors' code does it.

- ``greedy`` (every measure): pairs ranked by Dice overlap ``2 * overlap / (len(p) + len(g))``
  times the pair's mass (severity reward, or the lighter weight), highest first, ties in order of
  predicted then gold index; a pair is taken while both spans are free; pairs ranked 0 are never taken.
  The ranking is the same whatever the measure, so greedy ``em`` may pair an exact span with an
  overlapping one of a better severity and then earn nothing for it — as the authors' code does.
- ``optimal``, ``em`` / ``mp`` / ``wmt25``: a maximum-sum assignment of the pair credit
  (:func:`~tribunal.eval.meta.spans.measures.optimal_objective`) by the method of
  :func:`scipy.optimize.linear_sum_assignment` (:mod:`tribunal.eval.meta.spans.assignment`); their F
  grows with that sum, so this is the best matching. Pairs of credit 0 are not matches.
- ``optimal``, ``mpp``: the matching of highest segment F (:mod:`tribunal.eval.meta.spans.mpp_search`).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from tribunal.core.spans import Span
from tribunal.eval.meta.spans.assignment import max_assignment
from tribunal.eval.meta.spans.measures import PairValue, dice, optimal_objective
from tribunal.eval.meta.spans.mpp_search import best_mpp_pairs

Pairs = list[tuple[int, int]]


def objective_matrix(predicted: Sequence[Span], gold: Sequence[Span], value: PairValue) -> np.ndarray:
    """``m[i, j]``: value of pairing predicted ``i`` with gold ``j`` (0 across sides)."""
    m = np.zeros((len(predicted), len(gold)))
    for i, p in enumerate(predicted):
        for j, g in enumerate(gold):
            if p.side == g.side:
                m[i, j] = value(p, g)
    return m


def optimal_pairs(m: np.ndarray) -> Pairs:
    """Pairs of a maximum-sum one-to-one assignment (only pairs with a positive value)."""
    if m.size == 0:
        return []
    pairs = max_assignment(m.tolist())  # scipy's method and tie-breaking, without loading scipy (assignment.py)
    return [(i, j) for i, j in pairs if m[i, j] > 0]


def greedy_pairs(m: np.ndarray) -> Pairs:
    """Pairs taken best-first while both sides are free (ties: lower predicted, then lower gold index)."""
    order = sorted(((-m[i, j], i, j) for i in range(m.shape[0]) for j in range(m.shape[1]) if m[i, j] > 0))
    used_p, used_g, pairs = set(), set(), []
    for _, i, j in order:
        if i not in used_p and j not in used_g:
            used_p.add(i)
            used_g.add(j)
            pairs.append((i, j))
    return pairs


def mpp_optimal_pairs(predicted: Sequence[Span], gold: Sequence[Span], mass: PairValue, n_p: float,
                      n_g: float) -> Pairs:
    """The F-best MPP matching: the candidates are the pairs with shared characters and a positive mass."""
    candidates = []
    for p in predicted:
        row = []
        for j, g in enumerate(gold):
            shared, c = p.overlap(g), mass(p, g)
            if shared > 0 and c > 0:
                row.append((j, shared / p.length * c, shared / g.length * c))
        candidates.append(row)
    order = sorted(range(len(predicted)), key=lambda i: (predicted[i].side, predicted[i].start, predicted[i].end, i))
    return best_mpp_pairs(candidates, order, n_p, n_g)


def one_to_one_pairs(measure: str, assignment: str, predicted: Sequence[Span], gold: Sequence[Span],
                     mass: PairValue, n_p: float, n_g: float) -> Pairs:
    """The matched pairs of one segment under ``measure`` and ``assignment``."""
    if not predicted or not gold:
        return []
    if assignment == "greedy":
        return greedy_pairs(objective_matrix(predicted, gold, lambda p, g: dice(p, g) * mass(p, g)))
    if measure == "mpp":
        return mpp_optimal_pairs(predicted, gold, mass, n_p, n_g)
    return optimal_pairs(objective_matrix(predicted, gold, optimal_objective(measure, mass)))

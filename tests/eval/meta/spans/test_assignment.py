"""The scipy-free assignment picks exactly what scipy's linear_sum_assignment picks, ties included."""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

from tribunal.eval.meta.spans.assignment import max_assignment


def test_same_pairs_as_scipy_on_random_matrices_full_of_ties():
    rng = np.random.default_rng(11)
    for t in range(6000):
        n, k = rng.integers(1, 7, size=2)
        if t % 3 == 0:
            m = rng.choice([0.0, 0.5, 1.0], size=(n, k))
        elif t % 3 == 1:
            m = np.where(rng.random((n, k)) < 0.4, rng.random((n, k)), 0.0)
        else:
            m = rng.choice([0.0, 0.25, 1 / 3, 2 / 3, 1.0], size=(n, k))
        rows, cols = linear_sum_assignment(m, maximize=True)
        assert max_assignment(m.tolist()) == list(zip(rows.tolist(), cols.tolist())), m


def test_empty_and_rectangular():
    assert max_assignment([]) == []
    assert max_assignment([[0.2, 0.9, 0.1]]) == [(0, 1)]
    assert max_assignment([[0.2], [0.9], [0.1]]) == [(1, 0)]


def test_span_evaluation_does_not_load_scipy():
    import subprocess
    import sys

    code = ("import sys; from tribunal.eval.meta.spans.matching import optimal_pairs; import numpy as np; "
            "optimal_pairs(np.array([[1.0, 1.0], [1.0, 0.5]])); print('scipy.optimize' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "False"

"""Benchmark: the exact instance-averaged permutation test, by number of instances and kind of divergences.

Each instance has ten runs with random run-pair divergences k/n (seeded): ``large`` denominators
n in 3..45 (the number of scored pairs varies between run pairs, as with lineage matching; the
common denominator outgrows int64, so the sums are Python integers) or ``small`` ones (n = 3: int64).
Times are one call of ``instance_averaged_test`` (the split nulls are built beforehand).

    python benchmarks/bench_exact_permutation.py
"""

from __future__ import annotations

import itertools
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tribunal.eval.hyp.divergence import extra_divergence  # noqa: E402
from tribunal.eval.hyp.joint_permutation import instance_averaged_test  # noqa: E402
from tribunal.eval.hyp.permutation import split_null  # noqa: E402


def random_matrix(rng: np.random.Generator, largest_denominator: int) -> np.ndarray:
    matrix = np.zeros((10, 10))
    for i, j in itertools.combinations(range(10), 2):
        n = int(rng.integers(3, largest_denominator + 1))
        matrix[i, j] = matrix[j, i] = int(rng.integers(0, n + 1)) / n
    return matrix


def main() -> None:
    rng = np.random.default_rng(5)
    for kind, largest in (("small", 3), ("large", 45)):
        nulls = [split_null(random_matrix(rng, largest), range(5), range(5, 10), extra_divergence) for _ in range(6)]
        for count in (1, 4, 6):
            started = time.perf_counter()
            result = instance_averaged_test(nulls[:count])
            print(f"{kind} denominators (3..{largest}), {count} instances: {result.method}, "
                  f"p = {result.p_value:.6f}, {time.perf_counter() - started:.3f} s")


if __name__ == "__main__":
    main()

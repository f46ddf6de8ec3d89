"""The rows of ``tribunal hyp divergence``'s tables, computed from the runs and a rule's judgments:
the pairs to judge, extra divergence per instance and depth pair (with its exact p and split null),
the instance-averaged test, cluster counts and matching counts."""

from __future__ import annotations

import itertools
import math
from typing import Sequence

import numpy as np

from tribunal.core.hyp_records import RunRecord
from tribunal.eval.hyp.clustering import count_clusters
from tribunal.eval.hyp.divergence import Matching, cross_mean, extra_divergence, pair_key, within_mean
from tribunal.eval.hyp.divergence_settings import DivergenceSettings
from tribunal.eval.hyp.joint_permutation import instance_averaged_test
from tribunal.eval.hyp.permutation import SplitNull, split_null


def needed_pairs(runs: Sequence[RunRecord], matching: Matching) -> list:
    """Distinct pairs to judge: matched across runs, and all pairs within each run (for clusters)."""
    pairs = {}
    for a, b in itertools.combinations(runs, 2):
        for x, y in matching(a, b):
            pairs.setdefault(pair_key(x, y), (x, y))
    for run in runs:
        for x, y in itertools.combinations(run.hypotheses, 2):
            pairs.setdefault(pair_key(x, y), (x, y))
    return list(pairs.values())


def depth_groups(runs: Sequence[RunRecord]) -> dict[int, list[int]]:
    """The indices of ``runs`` per critique depth."""
    groups: dict[int, list[int]] = {}
    for index, run in enumerate(runs):
        groups.setdefault(run.depth, []).append(index)
    return groups


def instance_rows(rule: str, instance: str, matrix: np.ndarray, groups: dict[int, list[int]],
                  alternative: str = "two-sided"):
    """Per depth pair: the instance's extra divergence, its own exact p, and its split null."""
    rows, nulls = [], {}
    for d1, d2 in itertools.combinations(sorted(groups), 2):
        a, b = groups[d1], groups[d2]
        row = {"rule": rule, "instance": instance, "depth_a": d1, "depth_b": d2, "runs": len(a) + len(b),
               "cross": cross_mean(matrix, a, b), "same_depth": within_mean(matrix, a, b),
               "extra": extra_divergence(matrix, a, b), "p_value": math.nan, "splits": 0, "in_test": False}
        if len(a) == len(b) and len(a) >= 2:
            nulls[(d1, d2)] = null = split_null(matrix, a, b, extra_divergence)
            test = instance_averaged_test([null], alternative)
            row.update(p_value=test.p_value, splits=null.splits, in_test=test.instances == 1)
        rows.append(row)
    return rows, nulls


def _nan_mean(values: list[float]) -> float:
    """The mean of the finite ``values`` (NaN if none)."""
    finite = [v for v in values if math.isfinite(v)]
    return float(np.mean(finite)) if finite else math.nan


def averaged_rows(rule: str, rows: list[dict], nulls: dict[tuple[int, int], list[SplitNull]],
                  settings: DivergenceSettings) -> list[dict]:
    """Per depth pair: the instance-averaged extra divergence and its joint permutation p.

    ``cross``, ``same_depth`` and ``extra`` average the instances in the test, so ``extra`` is the
    tested statistic (the test's own exact value); ``extra_all`` averages every instance with a
    defined extra (it differs when an instance cannot be tested, e.g. unequal reruns per depth).
    """
    out = []
    for (d1, d2) in sorted({(r["depth_a"], r["depth_b"]) for r in rows}):
        mine = [r for r in rows if (r["depth_a"], r["depth_b"]) == (d1, d2)]
        test = instance_averaged_test(nulls.get((d1, d2), []), settings.alternative, settings.max_states,
                                      settings.samples, settings.seed)
        tested = [r for r in mine if r["in_test"]]
        means = {key: _nan_mean([r[key] for r in tested or mine]) for key in ("cross", "same_depth", "extra")}
        if tested:
            means["extra"] = test.observed
        out.append({"rule": rule, "depth_a": d1, "depth_b": d2, "instances": len(mine), "tested": test.instances,
                    **means, "extra_all": _nan_mean([r["extra"] for r in mine]),
                    "p_value": test.p_value, "alternative": test.alternative, "test": test.method,
                    "combinations": test.combinations, "samples": test.samples if test.method == "sampled" else 0})
    return out


def cluster_rows(rule: str, runs: Sequence[RunRecord], same: dict) -> list[dict]:
    """Per run: its delivered hypotheses and their cluster count (components of the 'same' graph)."""
    rows = []
    for run in runs:
        present = run.hypotheses
        edges = [(i, j) for i, j in itertools.combinations(range(len(present)), 2)
                 if same.get(pair_key(present[i], present[j])) is True]
        rows.append({"rule": rule, "instance": run.instance, "run": run.run_id, "depth": run.depth,
                     "delivered": len(present), "clusters": count_clusters(len(present), edges)})
    return rows


def by_instance(runs: Sequence[RunRecord]) -> dict[str, list[RunRecord]]:
    """``runs`` grouped by instance (runs are compared only within their instance)."""
    grouped: dict[str, list[RunRecord]] = {}
    for run in runs:
        grouped.setdefault(run.instance, []).append(run)
    return grouped


def matching_counts(grouped: dict[str, list[RunRecord]], matching: Matching) -> list[dict]:
    """Per instance: its runs, run pairs and matched hypothesis pairs."""
    return [{"instance": name, "runs": len(runs), "run_pairs": math.comb(len(runs), 2),
             "matched_pairs": sum(len(matching(a, b)) for a, b in itertools.combinations(runs, 2))}
            for name, runs in grouped.items()]

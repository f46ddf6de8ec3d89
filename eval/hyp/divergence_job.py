"""``tribunal hyp divergence``: judge matched hypotheses across stored runs under each rule.

Per rule: the run x run divergence matrix, extra divergence per depth pair with its exact
permutation p-value, and the mean cluster count of the delivered sets per depth. Every
needed pair (cross-run slot matches and within-run pairs) is judged in one batch per rule.
MLflow: a parent run ``hyp-divergence`` and one nested run per rule.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from tribunal.eval.equiv.rules.base import EquivalenceRule
from tribunal.eval.hyp.clustering import count_clusters
from tribunal.eval.hyp.divergence import (
    cross_mean, divergence_matrix, extra_divergence, matched_pairs, pair_key, within_mean,
)
from tribunal.eval.hyp.permutation import exact_split_test
from tribunal.eval.hyp.records import RunRecord
from tribunal.eval.hyp.run_job import engagement_shares, load_runs
from tribunal.eval.tracking.mlflow_run import TrackingSettings, tracked_run
from tribunal.eval.tracking.signature import signature, text_hash

CLUSTER_RULE = "connected components of the graph joining delivered hypotheses judged 'same'"


@dataclass
class DivergenceResult:
    runs: list[RunRecord]
    divergence: pd.DataFrame
    clusters: pd.DataFrame
    engagement: pd.DataFrame
    matrices: dict[str, np.ndarray]
    signature: str
    run_id: str | None


def needed_pairs(runs: Sequence[RunRecord]) -> list:
    """Distinct pairs to judge: slot-matched across runs, and all pairs within each run."""
    pairs = {}
    for a, b in itertools.combinations(runs, 2):
        for x, y in matched_pairs(a, b):
            pairs.setdefault(pair_key(x, y), (x, y))
    for run in runs:
        present = [h for h in run.hypotheses if h is not None]
        for x, y in itertools.combinations(present, 2):
            pairs.setdefault(pair_key(x, y), (x, y))
    return list(pairs.values())


def depth_groups(runs: Sequence[RunRecord]) -> dict[int, list[int]]:
    groups: dict[int, list[int]] = {}
    for index, run in enumerate(runs):
        groups.setdefault(run.depth, []).append(index)
    return groups


def divergence_rows(label: str, matrix: np.ndarray, groups: dict[int, list[int]]) -> list[dict]:
    """Extra divergence and exact p-value for every pair of depths."""
    rows = []
    for d1, d2 in itertools.combinations(sorted(groups), 2):
        a, b = groups[d1], groups[d2]
        row = {"rule": label, "depth_a": d1, "depth_b": d2, "runs": len(a) + len(b),
               "cross": cross_mean(matrix, a, b), "same_depth": within_mean(matrix, a, b),
               "extra": extra_divergence(matrix, a, b), "p_value": math.nan, "splits": 0}
        if len(a) == len(b) and len(a) >= 2:
            test = exact_split_test(matrix, a, b, extra_divergence)
            row.update(p_value=test.p_value, splits=test.splits)
        rows.append(row)
    return rows


def cluster_rows(label: str, runs: Sequence[RunRecord], same: dict) -> list[dict]:
    rows = []
    for run in runs:
        present = [h for h in run.hypotheses if h is not None]
        edges = [(i, j) for i, j in itertools.combinations(range(len(present)), 2)
                 if same.get(pair_key(present[i], present[j])) is True]
        rows.append({"rule": label, "run": run.run_id, "depth": run.depth, "delivered": len(present),
                     "clusters": count_clusters(len(present), edges)})
    return rows


def run_divergence(run_dir: Path, rules: Sequence[EquivalenceRule], tracking: TrackingSettings,
                   out: Path | None = None) -> DivergenceResult:
    runs = load_runs(run_dir)
    if len(runs) < 2:
        raise ValueError(f"{run_dir}: need at least two stored runs (found {len(runs)})")
    pairs = needed_pairs(runs)
    groups = depth_groups(runs)
    sig = signature({"task": "hyp-divergence", "rules": [r.label for r in rules],
                     "runs": f"{run_dir.name}@{text_hash(''.join(r.model_dump_json() for r in runs))}"})
    div_rows, clu_rows, matrices = [], [], {}
    params = {"run_dir": str(run_dir), "runs": len(runs), "pairs": len(pairs), "cluster_rule": CLUSTER_RULE,
              "rules": ",".join(r.label for r in rules)}
    with tracked_run(tracking, "hyp-divergence", params, {"tribunal.command": "hyp divergence"}, sig) as parent:
        for rule in rules:
            started = time.time()  # the rule's nested run spans its judging
            judgments = rule.judge_pairs(pairs)
            same = {pair_key(x, y): j.same for (x, y), j in zip(pairs, judgments)}
            matrices[rule.label] = matrix = divergence_matrix(runs, same)
            rows, clusters = divergence_rows(rule.label, matrix, groups), cluster_rows(rule.label, runs, same)
            div_rows += rows
            clu_rows += clusters
            with parent.child(rule.label, {"rule": rule.label, **rule.params()}, started=started) as run:
                for row in rows:
                    key = f"d{row['depth_a']}_vs_d{row['depth_b']}"
                    run.log_metrics({f"extra/{key}": row["extra"], f"p_value/{key}": row["p_value"]})
                frame = pd.DataFrame(clusters)
                for depth, mean in frame.groupby("depth")["clusters"].mean().items():
                    run.log_metrics({f"clusters/d{depth}": mean})
                run.log_table(pd.DataFrame(matrix, index=[r.run_id for r in runs], columns=[r.run_id for r in runs])
                              .reset_index(names="run"), "divergence_matrix.json")
                run.log_metrics({"unscored_pairs": sum(j.same is None for j in judgments), **rule.stats()})
        engagement = pd.DataFrame([{"depth": d, **s} for d, s in engagement_shares(runs).items()])
        divergence = pd.DataFrame(div_rows)
        clusters = (pd.DataFrame(clu_rows).groupby(["rule", "depth"])["clusters"]
                    .agg(["mean", "min", "max", "count"]).reset_index())
        for name, frame in (("divergence", divergence), ("clusters", clusters), ("engagement", engagement)):
            parent.log_table(frame, f"{name}.json")
            if out:
                out.mkdir(parents=True, exist_ok=True)
                frame.to_csv(out / f"{name}.tsv", sep="\t", index=False)
    return DivergenceResult(runs, divergence, clusters, engagement, matrices, sig, parent.run_id)

"""``tribunal hyp divergence``: judge matched hypotheses across stored runs under each rule.

Runs are compared only within their instance. Per rule and instance: the run x run divergence
matrix (hypotheses matched by lineage, or by slot), extra divergence per depth pair, and the
cluster count of each run's delivered set. Per depth pair the instance-averaged extra
divergence is tested with the joint permutation test (two-sided by default; exact, sampled past
a size: :mod:`tribunal.eval.hyp.joint_permutation`); each instance also gets its own exact p.
The LLM judge is framed by each instance's research question and observed finding.
MLflow: a parent run ``hyp-divergence`` and one nested run per rule.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Sequence

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field

from tribunal.eval.data.atomic import write_text_atomically
from tribunal.eval.equiv.audit_job import llm_judges
from tribunal.eval.equiv.rules.base import EquivalenceRule
from tribunal.errors import SpendingCapReached
from tribunal.eval.hyp.clustering import count_clusters
from tribunal.eval.hyp.divergence import (
    Matching, cross_mean, divergence_matrix, extra_divergence, matching_rule, pair_key, within_mean,
)
from tribunal.eval.hyp.engagement_job import engagement_shares
from tribunal.eval.hyp.instance import Instance
from tribunal.eval.hyp.joint_permutation import DEFAULT_MAX_STATES, DEFAULT_SAMPLES, instance_averaged_test
from tribunal.eval.hyp.permutation import SplitNull, split_null
from tribunal.core.hyp_records import RunRecord
from tribunal.eval.hyp.run_job import MANIFEST, load_runs
from tribunal.eval.tracking.mlflow_run import TrackingSettings, tracked_run
from tribunal.eval.tracking.run_signatures import HypDivergenceSignature
from tribunal.eval.tracking.signature import text_hash
from tribunal.programs.equiv_judge import EquivalenceJudge

CLUSTER_RULE = "connected components of the graph joining delivered hypotheses judged 'same'"


class DivergenceSettings(BaseModel):
    """How runs are matched and how extra divergence is tested."""

    model_config = ConfigDict(extra="forbid")

    matching: Literal["lineage", "slot"] = "lineage"
    alternative: Literal["two-sided", "greater"] = "two-sided"
    max_states: int = Field(DEFAULT_MAX_STATES, ge=1, description="Largest exact convolution step before sampling.")
    samples: int = Field(DEFAULT_SAMPLES, ge=1, description="Joint splits drawn by the sampling fallback.")
    seed: int = 0
    frame_judge: bool = Field(True, description="Give the LLM judge each instance's question and finding.")


@dataclass
class DivergenceResult:
    runs: list[RunRecord]
    divergence: pd.DataFrame  # instance-averaged, per rule and depth pair
    by_instance: pd.DataFrame
    matching: pd.DataFrame  # run pairs and matched pairs per instance
    clusters: pd.DataFrame
    engagement: pd.DataFrame
    matrices: dict[tuple[str, str], np.ndarray]  # (rule, instance) -> matrix
    signature: str
    run_id: str | None


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
    groups: dict[int, list[int]] = {}
    for index, run in enumerate(runs):
        groups.setdefault(run.depth, []).append(index)
    return groups


def stored_instances(run_dir: Path) -> dict[str, Instance]:
    """The instances in the run directory's manifest (older manifests hold one, as ``instance``)."""
    path = run_dir / MANIFEST
    if not path.is_file():
        return {}
    manifest = json.loads(path.read_text(encoding="utf-8"))
    items = manifest.get("instances") or ([manifest["instance"]] if manifest.get("instance") else [])
    return {item["id"]: Instance.model_validate(item) for item in items}


def framed(rule: EquivalenceRule, instance: Instance | None) -> EquivalenceRule:
    """The rule with its LLM judge framed by the instance's question and finding; other rules unchanged."""
    program = getattr(rule, "program", None)
    if instance is None or not isinstance(program, EquivalenceJudge):
        return rule
    clone = copy.copy(rule)
    clone.program = program.framed(instance.research_question, instance.observed_finding)
    return clone


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
    rows = []
    for run in runs:
        present = run.hypotheses
        edges = [(i, j) for i, j in itertools.combinations(range(len(present)), 2)
                 if same.get(pair_key(present[i], present[j])) is True]
        rows.append({"rule": rule, "instance": run.instance, "run": run.run_id, "depth": run.depth,
                     "delivered": len(present), "clusters": count_clusters(len(present), edges)})
    return rows


def by_instance(runs: Sequence[RunRecord]) -> dict[str, list[RunRecord]]:
    grouped: dict[str, list[RunRecord]] = {}
    for run in runs:
        grouped.setdefault(run.instance, []).append(run)
    return grouped


def matching_counts(grouped: dict[str, list[RunRecord]], matching: Matching) -> list[dict]:
    return [{"instance": name, "runs": len(runs), "run_pairs": math.comb(len(runs), 2),
             "matched_pairs": sum(len(matching(a, b)) for a, b in itertools.combinations(runs, 2))}
            for name, runs in grouped.items()]


class DivergenceCapped(SpendingCapReached):
    """A spending cap stopped the LM rules' judging; ``left``: the pair judgments not made."""

    def __init__(self, message: str, left: int):
        super().__init__(message)
        self.left = left


def _left(rule: EquivalenceRule) -> int:
    """The pair judgments a cap left undone by the rule's LM judge (itself, or a cascade's)."""
    return getattr(rule, "left", None) if hasattr(rule, "left") else getattr(getattr(rule, "judge", None), "left", 0)


def judge_under_cap(rules: Sequence[EquivalenceRule], grouped: dict[str, list[RunRecord]], matching: Matching,
                    contexts: dict[str, Instance], only: Instance | None, frame_judge: bool, cap: Any) -> None:
    """Under ``cap``: judge every pair the LM rules need before anything is logged or written (their
    judgments are memoized, so the tables reuse them); raises :class:`DivergenceCapped` once the pairs
    in flight finished when the cap stopped."""
    judges = llm_judges(rules)
    for judge in judges:
        judge.capped(cap)
    ids = {id(judge) for judge in judges}
    batches = [(rule, name, needed_pairs(inst_runs, matching))
               for rule in rules if id(rule) in ids or id(getattr(rule, "judge", None)) in ids
               for name, inst_runs in grouped.items()]
    for index, (rule, name, pairs) in enumerate(batches):
        clone = framed(rule, contexts.get(name, only) if frame_judge else None)
        before = _left(clone)
        try:
            clone.judge_pairs(pairs)
        except SpendingCapReached as err:
            left = _left(clone) - before + sum(len(later[2]) for later in batches[index + 1:])
            raise DivergenceCapped(str(err), left) from None


def run_divergence(run_dir: Path, rules: Sequence[EquivalenceRule], tracking: TrackingSettings,
                   out: Path | None = None, settings: DivergenceSettings | None = None,
                   cap: Any = None) -> DivergenceResult:
    """Judge, test and log the divergence of the stored runs (see the module's docstring).

    Under ``cap`` (a :class:`~tribunal.runner.spending_cap.SpendingCap`) the LM rules judge first: when the
    cap stops them, :class:`DivergenceCapped` is raised before any table or MLflow run
    (its ``left`` counts what is left; a rerun replays the finished calls from the response cache).
    """
    settings = settings or DivergenceSettings()
    matching = matching_rule(settings.matching)
    runs = load_runs(run_dir)
    if len(runs) < 2:
        raise ValueError(f"{run_dir}: need at least two stored runs (found {len(runs)})")
    grouped = by_instance(runs)
    contexts = stored_instances(run_dir)
    only = next(iter(contexts.values())) if len(contexts) == 1 else None  # older run folders: one instance
    if cap is not None:
        judge_under_cap(rules, grouped, matching, contexts, only, settings.frame_judge, cap)
    counts = pd.DataFrame(matching_counts(grouped, matching))
    sig = str(HypDivergenceSignature(rules=",".join(r.label for r in rules), matching=settings.matching,
                                     test=settings.alternative,
                                     runs=f"{run_dir.name}@{text_hash(''.join(r.model_dump_json() for r in runs))}"))
    params = {"run_dir": str(run_dir), "runs": len(runs), "instances": len(grouped), "cluster_rule": CLUSTER_RULE,
              "rules": ",".join(r.label for r in rules), **settings.model_dump(),
              "run_pairs": int(counts["run_pairs"].sum()), "matched_pairs": int(counts["matched_pairs"].sum())}
    div_rows, inst_rows, clu_rows, matrices = [], [], [], {}
    with tracked_run(tracking, "hyp-divergence", params, {"tribunal.command": "hyp divergence"}, sig) as parent:
        for rule in rules:
            started = time.time()  # the rule's nested run spans its judging
            rule_rows, nulls, unscored = [], {}, 0
            for name, inst_runs in grouped.items():
                context = contexts.get(name, only) if settings.frame_judge else None
                pairs = needed_pairs(inst_runs, matching)
                judgments = framed(rule, context).judge_pairs(pairs)
                unscored += sum(j.same is None for j in judgments)
                same = {pair_key(x, y): j.same for (x, y), j in zip(pairs, judgments)}
                matrices[(rule.label, name)] = matrix = divergence_matrix(inst_runs, same, matching)
                rows, inst_nulls = instance_rows(rule.label, name, matrix, depth_groups(inst_runs), settings.alternative)
                rule_rows += rows
                for key, null in inst_nulls.items():
                    nulls.setdefault(key, []).append(null)
                clu_rows += cluster_rows(rule.label, inst_runs, same)
            averaged = averaged_rows(rule.label, rule_rows, nulls, settings)
            inst_rows += rule_rows
            div_rows += averaged
            with parent.child(rule.label, {"rule": rule.label, **rule.params()}, started=started) as run:
                for row in averaged:
                    key = f"d{row['depth_a']}_vs_d{row['depth_b']}"
                    run.log_metrics({f"extra/{key}": row["extra"], f"p_value/{key}": row["p_value"]})
                frame = pd.DataFrame([r for r in clu_rows if r["rule"] == rule.label])
                for depth, mean in frame.groupby("depth")["clusters"].mean().items():
                    run.log_metrics({f"clusters/d{depth}": mean})
                for (label, name), matrix in matrices.items():
                    if label == rule.label:
                        ids = [r.run_id for r in grouped[name]]
                        run.log_table(pd.DataFrame(matrix, index=ids, columns=ids).reset_index(names="run"),
                                      f"divergence_matrix_{name}.json")
                run.log_metrics({"unscored_pairs": unscored, **rule.stats()})
        tables = {
            "divergence": pd.DataFrame(div_rows),
            "divergence_by_instance": pd.DataFrame(inst_rows),
            "matching": counts,
            "clusters": (pd.DataFrame(clu_rows).groupby(["rule", "depth"])["clusters"]
                         .agg(["mean", "min", "max", "count"]).reset_index()),
            "engagement": pd.DataFrame([{"depth": d, **s} for d, s in engagement_shares(runs).items()]),
        }
        for name, frame in tables.items():
            parent.log_table(frame, f"{name}.json")
            if out:
                write_text_atomically(out / f"{name}.tsv", frame.to_csv(sep="\t", index=False))
    return DivergenceResult(runs, tables["divergence"], tables["divergence_by_instance"], tables["matching"],
                            tables["clusters"], tables["engagement"], matrices, sig, parent.run_id)

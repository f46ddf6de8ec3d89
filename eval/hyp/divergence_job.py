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
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from tribunal.core.hyp_records import RunRecord
from tribunal.errors import SpendingCapReached
from tribunal.data.atomic import write_text_atomically
from tribunal.eval.equiv.audit_job import llm_judges
from tribunal.eval.equiv.rules.base import EquivalenceRule
from tribunal.eval.hyp.divergence import Matching, divergence_matrix, matching_rule, pair_key
from tribunal.eval.hyp.divergence_rows import (averaged_rows, by_instance, cluster_rows, depth_groups, instance_rows,
                                               matching_counts, needed_pairs)
from tribunal.eval.hyp.divergence_settings import DivergenceSettings
from tribunal.eval.hyp.engagement_job import engagement_shares
from tribunal.eval.hyp.instance import Instance
from tribunal.eval.hyp.run_store import MANIFEST, load_runs
from tribunal.eval.tracking.mlflow_run import TrackingSettings, tracked_run
from tribunal.eval.tracking.run_signatures import HypDivergenceSignature
from tribunal.eval.tracking.signature import text_hash

__all__ = ["CLUSTER_RULE", "DivergenceCapped", "DivergenceResult", "DivergenceSettings", "run_divergence"]

CLUSTER_RULE = "connected components of the graph joining delivered hypotheses judged 'same'"


@dataclass
class DivergenceResult:
    """What the job found: the runs, its tables, the divergence matrices, its signature and MLflow run."""

    runs: list[RunRecord]
    divergence: pd.DataFrame  # instance-averaged, per rule and depth pair
    by_instance: pd.DataFrame
    matching: pd.DataFrame  # run pairs and matched pairs per instance
    clusters: pd.DataFrame
    engagement: pd.DataFrame
    matrices: dict[tuple[str, str], np.ndarray]  # (rule, instance) -> matrix
    signature: str
    run_id: str | None


def stored_instances(run_dir: Path) -> dict[str, Instance]:
    """The instances in the run directory's manifest (older manifests hold one, as ``instance``)."""
    path = run_dir / MANIFEST
    if not path.is_file():
        return {}
    manifest = json.loads(path.read_text(encoding="utf-8"))
    items = manifest.get("instances") or ([manifest["instance"]] if manifest.get("instance") else [])
    return {item["id"]: Instance.model_validate(item) for item in items}


def framed(rule: EquivalenceRule, instance: Instance | None) -> EquivalenceRule:
    """The rule with its LLM judge framed by the instance's question and finding; other rules, and a judge
    that cannot be framed (no ``framed(question, finding)`` method), unchanged."""
    framing = getattr(getattr(rule, "program", None), "framed", None)
    if instance is None or not callable(framing):
        return rule
    clone = copy.copy(rule)
    clone.program = framing(instance.research_question, instance.observed_finding)
    return clone


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
    framing = {name: contexts.get(name, only) if settings.frame_judge else None for name in grouped}
    found = RuleTables()
    with tracked_run(tracking, "hyp-divergence", params, {"tribunal.command": "hyp divergence"}, sig) as parent:
        for rule in rules:
            started = time.time()  # the rule's nested run spans its judging
            averaged, unscored = judge_rule(rule, grouped, matching, framing, settings, found)
            with parent.child(rule.label, {"rule": rule.label, **rule.params()}, started=started) as run:
                log_rule(run, rule, averaged, found, grouped, unscored)
        tables = final_tables(found, counts, runs)
        for name, frame in tables.items():
            parent.log_table(frame, f"{name}.json")
            if out:
                write_text_atomically(out / f"{name}.tsv", frame.to_csv(sep="\t", index=False))
    return DivergenceResult(runs, tables["divergence"], tables["divergence_by_instance"], tables["matching"],
                            tables["clusters"], tables["engagement"], found.matrices, sig, parent.run_id)


@dataclass
class RuleTables:
    """The rows every rule adds as it is judged: instance-averaged, per instance, clusters, and the matrices."""

    divergence: list[dict] = field(default_factory=list)
    by_instance: list[dict] = field(default_factory=list)
    clusters: list[dict] = field(default_factory=list)
    matrices: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)


def judge_rule(rule: EquivalenceRule, grouped: dict[str, list[RunRecord]], matching: Matching,
               framing: dict[str, Instance | None], settings: DivergenceSettings,
               found: RuleTables) -> tuple[list[dict], int]:
    """Judge every needed pair of each instance with ``rule`` (its LLM judge framed by ``framing[instance]``,
    if any) and add its rows to ``found``; returns its instance-averaged rows and its unscored pair count."""
    rule_rows, nulls, unscored = [], {}, 0
    for name, inst_runs in grouped.items():
        pairs = needed_pairs(inst_runs, matching)
        judgments = framed(rule, framing[name]).judge_pairs(pairs)
        unscored += sum(j.same is None for j in judgments)
        same = {pair_key(x, y): j.same for (x, y), j in zip(pairs, judgments)}
        found.matrices[(rule.label, name)] = matrix = divergence_matrix(inst_runs, same, matching)
        rows, inst_nulls = instance_rows(rule.label, name, matrix, depth_groups(inst_runs), settings.alternative)
        rule_rows += rows
        for key, null in inst_nulls.items():
            nulls.setdefault(key, []).append(null)
        found.clusters += cluster_rows(rule.label, inst_runs, same)
    averaged = averaged_rows(rule.label, rule_rows, nulls, settings)
    found.by_instance += rule_rows
    found.divergence += averaged
    return averaged, unscored


def log_rule(run: Any, rule: EquivalenceRule, averaged: list[dict], found: RuleTables,
             grouped: dict[str, list[RunRecord]], unscored: int) -> None:
    """The rule's nested run: extra divergence and p per depth pair, mean clusters per depth, its
    divergence matrices, unscored pairs and the rule's own stats."""
    for row in averaged:
        key = f"d{row['depth_a']}_vs_d{row['depth_b']}"
        run.log_metrics({f"extra/{key}": row["extra"], f"p_value/{key}": row["p_value"]})
    frame = pd.DataFrame([r for r in found.clusters if r["rule"] == rule.label])
    for depth, mean in frame.groupby("depth")["clusters"].mean().items():
        run.log_metrics({f"clusters/d{depth}": mean})
    for (label, name), matrix in found.matrices.items():
        if label == rule.label:
            ids = [r.run_id for r in grouped[name]]
            run.log_table(pd.DataFrame(matrix, index=ids, columns=ids).reset_index(names="run"),
                          f"divergence_matrix_{name}.json")
    run.log_metrics({"unscored_pairs": unscored, **rule.stats()})


def final_tables(found: RuleTables, counts: pd.DataFrame, runs: list[RunRecord]) -> dict[str, pd.DataFrame]:
    """The job's tables, by name (each logged as ``<name>.json`` and written as ``<name>.tsv``)."""
    return {
        "divergence": pd.DataFrame(found.divergence),
        "divergence_by_instance": pd.DataFrame(found.by_instance),
        "matching": counts,
        "clusters": (pd.DataFrame(found.clusters).groupby(["rule", "depth"])["clusters"]
                     .agg(["mean", "min", "max", "count"]).reset_index()),
        "engagement": pd.DataFrame([{"depth": d, **s} for d, s in engagement_shares(runs).items()]),
    }

"""``tribunal equiv audit`` as a function: judge labelled pairs with each rule, compute, track, write.

The pairs are the perturbation suite's or a user's pair file (both loaded as a :class:`Suite`).

MLflow layout: one parent run ``equiv-audit`` (agreement between rules, the combined
table) and one nested run per rule x rubric (per-kind shares, order flips, repeat
consistency, per-pair table, threshold sweep table and plot).
"""

from __future__ import annotations

import itertools
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from tribunal.eval.equiv.agreement import agreement
from tribunal.eval.equiv.audit import items_table, kind_shares, rule_summary, screen_routes
from tribunal.core.judgment import Judgment
from tribunal.eval.equiv.rules.base import EquivalenceRule, SimilarityRule
from tribunal.eval.equiv.suite import Suite
from tribunal.eval.equiv.sweep import ordered_kinds, sweep_figure, threshold_sweep
from tribunal.eval.tracking.mlflow_run import TrackingSettings, tracked_run
from tribunal.eval.tracking.run_signatures import EquivAuditSignature
from tribunal.eval.tracking.equiv_run import audit_run_name, log_rule_judgments, log_suite, rule_run_name
from tribunal.eval.tracking.usage_metrics import usage_metrics
from tribunal.eval.usage_summary import usage_fields
from tribunal.data.run_summary_file import summary_path, write_run_summary
from tribunal.eval.equiv.audit_summary import audit_run_summary
from tribunal.eval.equiv.pair_journal import PairJournal, journal_file
from tribunal.errors import SpendingCapReached
from tribunal.runner.meter import add_summaries


def metric_key(name: str) -> str:
    """An MLflow metric name: user kinds and tuned-program labels may hold characters it refuses."""
    return re.sub(r"[^\w\-. /:]", "_", name)


@dataclass
class RuleAudit:
    label: str
    params: dict
    repeats: list[list[Judgment]]
    shares: pd.DataFrame
    summary: dict[str, float]
    seconds: float
    sweep: pd.DataFrame | None = None
    window: tuple[float, float] = (0.0, 0.0)  # wall clock of the judging, for the traces
    call_logs: dict = field(default_factory=dict)  # LLM calls per (original, perturbed, repeat), for the traces
    program: Any = None  # the LLM judge, whose prompts are registered
    routes: pd.DataFrame | None = None  # a cascade: per kind, decided by the screen / sent to the judge / wrong


@dataclass
class AuditResult:
    suite: Suite
    rules: list[RuleAudit]
    agreement: pd.DataFrame
    signature: str
    run_id: str | None
    files: list[Path] = field(default_factory=list)
    stopped_by: str | None = None  # the spending cap that stopped the audit (then no table, no MLflow run)
    summary: Any = None  # its RunSummary (summary.json)

    def suite_kinds(self) -> list[str]:
        """The kinds of the audited pairs, in table order."""
        return ordered_kinds([p.kind for p in self.suite.pairs])

    def table(self) -> pd.DataFrame:
        """Rows: rule; columns: share judged different per kind, then the scalar metrics."""
        rows = []
        for audit in self.rules:
            row = {"rule": audit.label}
            row.update(dict(zip(audit.shares["kind"], audit.shares["share_different"])))
            row.update({k: audit.summary[k] for k in ("expected_agreement", "order_flip_rate", "repeat_consistency",
                                                       "unscored", "calls")})
            rows.append(row)
        return pd.DataFrame(rows)


def audit_rule(suite: Suite, rule: EquivalenceRule, repeats: int) -> RuleAudit:
    """Judge every suite pair ``repeats`` times with one rule."""
    pairs = [(p.original, p.perturbed) for p in suite.pairs]
    start, started = time.perf_counter(), time.time()
    judged = [rule.judge_pairs(pairs, repeat=r) for r in range(repeats)]
    seconds = time.perf_counter() - start
    audit = RuleAudit(rule.label, rule.params(), judged, kind_shares(suite.pairs, judged[0]),
                      {**rule_summary(suite.pairs, judged), **rule.stats()}, seconds, window=(started, time.time()),
                      call_logs=getattr(rule, "call_logs", {}), program=getattr(rule, "program", None),
                      routes=screen_routes(suite.pairs, judged[0]))
    if isinstance(rule, SimilarityRule):
        audit.sweep = threshold_sweep([p.kind for p in suite.pairs], [j.score for j in judged[0]],
                                      expected_same=[p.expected_same for p in suite.pairs])
    return audit


def cascade_savings(audits: Sequence[RuleAudit]) -> list[dict]:
    """For each cascade: pairs routed each way, its LM calls, and the calls of its judge alone
    (when the same judge was audited by itself in this run) -- the calls the cascade saved."""
    rows = []
    for audit in audits:
        if "routed_judge" not in audit.summary:
            continue
        judge_label = audit.label.removeprefix("cascade-")
        alone = next((a for a in audits if a.label == judge_label), None)
        row = {"rule": audit.label, "screened_same": audit.summary["routed_screen_same"],
               "screened_different": audit.summary["routed_screen_different"],
               "to_judge": audit.summary["routed_judge"], "calls": audit.summary["calls"],
               "calls_judge_alone": alone.summary["calls"] if alone else float("nan")}
        row["calls_saved"] = row["calls_judge_alone"] - row["calls"]
        if alone:
            stats = agreement([j.same for j in audit.repeats[0]], [j.same for j in alone.repeats[0]])
            row["agreement_with_judge_alone"] = stats.raw
        rows.append(row)
    return rows


def agreement_table(audits: Sequence[RuleAudit]) -> pd.DataFrame:
    """Pairwise agreement of the rules' first-repeat verdicts over all suite pairs."""
    rows = []
    for a, b in itertools.combinations(audits, 2):
        stats = agreement([j.same for j in a.repeats[0]], [j.same for j in b.repeats[0]])
        rows.append({"rule_a": a.label, "rule_b": b.label, "items": stats.n_items, "both_scored": stats.n_both_scored,
                     "raw": stats.raw, "kappa": stats.kappa, "alpha": stats.alpha, "note": stats.note})
    return pd.DataFrame(rows, columns=["rule_a", "rule_b", "items", "both_scored", "raw", "kappa", "alpha", "note"])


def _log_rule(parent, audit: RuleAudit, suite: Suite, out: Path | None, files: list[Path]) -> None:
    items = items_table(audit.label, suite.pairs, audit.repeats)

    with parent.child(rule_run_name(audit), {"rule": audit.label, **audit.params},
                      started=audit.window[0] or None) as run:  # the run spans the rule's judging
        log_rule_judgments(run, audit, suite)
        run.log_metrics({metric_key(f"different/{k}"): v
                         for k, v in zip(audit.shares["kind"], audit.shares["share_different"])})
        run.log_metrics({**audit.summary, "seconds": audit.seconds})
        run.log_table(items, "items.json")
        run.log_table(audit.shares, "kind_shares.json")
        if audit.routes is not None:
            run.log_table(audit.routes, "screen_routes.json")
            total = audit.routes.iloc[-1]
            run.log_metrics({"screen/screened": float(total["screened"]), "screen/to_judge": float(total["to_judge"]),
                             "screen/screened_wrong": float(total["screened_wrong"])})
            if out:
                audit.routes.to_csv(out / f"screen_{audit.label}.tsv", sep="\t", index=False)
                files.append(out / f"screen_{audit.label}.tsv")
        if audit.sweep is not None:
            figure = sweep_figure(audit.sweep, audit.label, float(audit.params["threshold"]))
            run.log_table(audit.sweep, "threshold_sweep.json")
            run.log_figure(figure, "threshold_sweep.png")
            if out:
                audit.sweep.to_csv(out / f"sweep_{audit.label}.tsv", sep="\t", index=False)
                figure.savefig(out / f"sweep_{audit.label}.png", dpi=120)
                files += [out / f"sweep_{audit.label}.tsv", out / f"sweep_{audit.label}.png"]
    if out:
        items.to_csv(out / f"items_{audit.label}.tsv", sep="\t", index=False)
        files.append(out / f"items_{audit.label}.tsv")


def llm_judges(rules: Sequence[EquivalenceRule]) -> list[Any]:
    """The LLM judges the rules consult (a cascade's, the llm rule's), each once: the rules that call an LM."""
    judges: dict[int, Any] = {}
    for rule in rules:
        for candidate in (rule, getattr(rule, "judge", None)):
            if candidate is not None and hasattr(candidate, "meter"):
                judges.setdefault(id(candidate), candidate)
    return list(judges.values())


def _judge_all(suite: Suite, rules: Sequence[EquivalenceRule], repeats: int, progress) -> tuple[list, list[str]]:
    """Every rule's audit, until a spending cap stops one: (the audits done, the labels of the rules left)."""
    audits: list[RuleAudit] = []
    for index, rule in enumerate(rules):
        if progress:
            progress(f"judging {len(suite.pairs)} pairs x {repeats} with {rule.label} ...")
        try:
            audits.append(audit_rule(suite, rule, repeats))
        except SpendingCapReached:
            return audits, [r.label for r in rules[index:]]
    return audits, []


def run_audit(suite: Suite, rules: Sequence[EquivalenceRule], repeats: int, tracking: TrackingSettings,
              out: Path | None = None, progress=None, cap: Any = None) -> AuditResult:
    """Audit each rule on the suite; log one parent run with a nested run per rule; write ``summary.json``.

    The LLM judges' finished judgments are journaled under ``out`` (a resumed audit reads them back).
    Under ``cap`` (a :class:`~tribunal.runner.spending_cap.SpendingCap`) the audit stops at the first rule
    the cap leaves unfinished: no table and no MLflow run then, the summary says what is left.
    """
    # each rule's setting pins its thresholds (an auto threshold is pinned by its rule, not its value)
    sig = str(EquivAuditSignature(rules=",".join(r.setting() for r in rules), repeats=repeats,
                                  data=f"{suite.name}@{suite.hash}"))
    params = {"suite": suite.name, "suite_hash": suite.hash, "pairs": len(suite.pairs),
              "rules": ",".join(r.label for r in rules), "repeats": repeats}
    if out:
        out.mkdir(parents=True, exist_ok=True)
    judges = llm_judges(rules)
    for judge in judges:
        judge.capped(cap)
        if out:
            judge.journaled(PairJournal(journal_file(out, judge.label, judge.setting())))
    files: list[Path] = []
    started, clock = time.time(), time.perf_counter()
    audits, left = _judge_all(suite, rules, repeats, progress)
    usage = add_summaries([judge.meter.summary() for judge in judges])
    if left:
        result = AuditResult(suite, audits, agreement_table(audits), sig, None, files, stopped_by=cap.stopped_by)
        result.summary = _summary(result, len(rules), repeats, usage, cap, left, clock, out)
        return result
    lm_name = next((judge.lm_name for judge in judges), "")
    with tracked_run(tracking, audit_run_name(rules, suite), params, {"tribunal.command": "equiv audit"}, sig,
                     started=started) as run:
        log_suite(run, suite)
        for audit in audits:
            _log_rule(run, audit, suite, out, files)
        agree = agreement_table(audits)
        result = AuditResult(suite, audits, agree, sig, run.run_id, files)
        table = result.table()
        run.log_table(table, "audit_table.json")
        run.log_table(agree, "agreement.json")
        for row in cascade_savings(audits):
            run.log_metrics({metric_key(f"cascade/{row['rule']}/{k}"): v for k, v in row.items() if k != "rule"})
        for row in agree.to_dict("records"):
            run.log_metrics({metric_key(f"agreement/{row['rule_a']}_vs_{row['rule_b']}/{k}"): row[k]
                             for k in ("raw", "kappa", "alpha")})
        run.log_metrics({metric_key(k): v for k, v in usage_metrics(usage, lm_name).items()})
        run.log_metrics({"lm_calls": float(usage_fields(usage)["calls"]), "wall_seconds": time.perf_counter() - clock})
        if out:
            for name, frame in (("audit_table.tsv", table), ("agreement.tsv", agree)):
                frame.to_csv(out / name, sep="\t", index=False)
                files.append(out / name)
        result.summary = _summary(result, len(rules), repeats, usage, cap, [], clock, out)
        run.log_text(result.summary.model_dump_json(indent=2), "summary.json")
    return result


def _summary(result: AuditResult, rules: int, repeats: int, usage: dict, cap: Any, left: list[str], clock: float,
             out: Path | None) -> Any:
    """The audit's :class:`~tribunal.core.run_summary.RunSummary`, written as ``out/summary.json``."""
    outputs = {"folder": str(out)} if out else {}
    summary = audit_run_summary(result, rules, repeats, usage, cap, cascade_savings(result.rules), left,
                                time.perf_counter() - clock, outputs)
    if out:
        write_run_summary(summary_path(out), summary)
    return summary

"""A protocol's primary table over language pairs and metrics (the per-LP work in :mod:`lp_tasks`)."""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import pandas as pd

from tribunal.data.mtme import LanguagePair
from tribunal.eval.meta.lp_tasks import (
    AlignedMetric,
    GoldMatrices,
    LpResult,
    align_metric,
    covered_inputs,
    many_of_metrics,
    results_from_aligned,
)
from tribunal.eval.meta.inputs import INPUTS
from tribunal.eval.meta.protocols import WMT23, Protocol, Task
from tribunal.eval.meta.statistics import STATISTICS

Inputs = tuple[GoldMatrices, AlignedMetric]
"""What a metric's task values on one pair were computed from (kept for significance tests)."""


@dataclass
class MetaEvalTable:
    """The table (sorted by ``avg_corr``), per-metric per-LP results and what they came from."""

    table: pd.DataFrame
    details: dict[str, dict[str, LpResult]]
    protocol: Protocol
    tasks: list[Task]
    inputs: dict[tuple[str, str], Inputs] = field(default_factory=dict, repr=False)
    notes: list[str] = field(default_factory=list)
    coverage_limited: bool = False

    def problems(self) -> list[str]:
        """Human-readable notes on metrics that could not be scored on some task."""
        return [f"{metric} {lp}: {problem}" for metric, per_lp in self.details.items()
                for lp, result in per_lp.items() for problem in result.problems]


def task_value(task: Task, per_lp: dict[str, LpResult]) -> float:
    """A task's value from a metric's per-LP results (NaN where a pair is missing or unscored)."""
    if task.pooled:  # the statistic's pool of each pair's extras (pairwise accuracy: sum(agree) / sum(pairs))
        results = [per_lp.get(lp) for lp in task.lps]
        return task.spec.pool([r.extras.get(task.kind) if r else None for r in results])
    result = per_lp.get(task.lps[0])
    return result.value(task.kind) if result else math.nan


def summarize(metric: str, per_lp: dict[str, LpResult], tasks: list[Task], coverage: bool = False) -> dict:
    """One table row: each task's value and the weighted average of their 0..1-scaled values."""
    row: dict[str, object] = {"metric": metric}
    total = weights = 0.0
    for task in tasks:
        value = task_value(task, per_lp)
        row[task.column] = value
        total += task.weight * task.spec.normalise(value)
        weights += task.weight
    row["avg_corr"] = total / weights if weights else math.nan
    if coverage:
        row["coverage"] = min((r.coverage for r in per_lp.values()), default=math.nan)
    return row


def _fields(tasks: list[Task]) -> list[str]:
    """The statistics the tasks read, each once, in task order."""
    return list(dict.fromkeys(t.kind for t in tasks))


def _input_notes(golds: dict[str, GoldMatrices], fields: list[str]) -> list[str]:
    """Each kind of input's notes on each pair; the shared gold side of batched statistics is computed
    here, before the threads share it (cached on the gold matrices: SPA's p-values)."""
    notes = []
    for kind in dict.fromkeys(STATISTICS[k].inputs for k in fields):
        for lp, gold in golds.items():
            if any(STATISTICS[k].many and STATISTICS[k].inputs == kind for k in fields):
                INPUTS[kind].gold(gold)
            note = INPUTS[kind].note(gold)
            notes += [f"{lp}: {note}"] if note else []
    return notes


def _on_covered_cells(gold: GoldMatrices, seg: dict, aligned: AlignedMetric,
                      fields: list[str]) -> tuple[LpResult, Inputs] | None:
    """``--coverage-limited``: a metric that misses rated cells scored on the cells it covers (None: it covers none)."""
    covered = covered_inputs(gold, seg)
    if covered is None:
        return None
    reasons = "; ".join(aligned.problems)
    gold, aligned, cells, rated = covered
    result = results_from_aligned(gold, aligned, fields)
    result.coverage = cells / rated
    result.note = (f"coverage-limited: scored on {cells} of {rated} rated cells "
                   f"(system scores are means over them) because of: {reasons}")
    return result, (gold, aligned)


def meta_eval_table(
    pairs: dict[str, LanguagePair], metrics: list[str] | None = None, protocol: Protocol = WMT23,
    workers: int | None = None, coverage_limited: bool = False,
) -> MetaEvalTable:
    """The ``protocol`` table over ``pairs`` for base metric names (all present ones by default).

    ``coverage_limited`` computes a metric that misses rated cells (or a ``.sys.score``) on the
    cells it covers, with system scores as means over them, and adds a ``coverage`` column.
    """
    lps = tuple(sorted(pairs))
    tasks = protocol.tasks(lps)
    fields = _fields(tasks)
    need_sys = protocol.needs_sys_scores
    golds = {lp: GoldMatrices.from_pair(pair, need_sys) for lp, pair in pairs.items()}
    batched = [STATISTICS[k] for k in fields if STATISTICS[k].many]  # per pair for all metrics at once, below
    notes = _input_notes(golds, fields)
    if metrics is None:
        metrics = sorted(set().union(*(set(p.base_metrics()) for p in pairs.values())))
    per_metric = [k for k in fields if not STATISTICS[k].many]

    def job(metric: str, lp: str) -> tuple[LpResult, Inputs | None]:
        pair, gold = pairs[lp], golds[lp]
        full = pair.resolve_metric(metric)
        if full is None:
            return LpResult(problems=[f"no {metric}-{pair.conventions.std_ref(lp)} or {metric}-src scores"]), None
        seg = pair.metric_seg(full)
        aligned = align_metric(gold, pair.metric_sys(full) if need_sys else None, seg, need_sys)
        limited = _on_covered_cells(gold, seg, aligned, fields) if aligned.problems and coverage_limited else None
        return limited or (results_from_aligned(gold, aligned, per_metric), (gold, aligned))

    def batch_job(lp: str) -> None:
        """Each batched statistic of every metric aligned to the pair's own gold (coverage-limited ones have theirs)."""
        for stat in batched:
            batch = [(result, used[1]) for result, used in (outcomes[m, lp] for m in metrics)
                     if used is not None and used[0] is golds[lp] and INPUTS[stat.inputs].available(used[1])]
            for (result, _), value in zip(batch, many_of_metrics(stat, golds[lp], [a for _, a in batch])):
                result.record(stat.key, value)

    # File parsing, sorting and matrix products release the GIL, so threads use every core.
    with ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
        futures = {(m, lp): pool.submit(job, m, lp) for m in metrics for lp in lps}
        outcomes = {key: future.result() for key, future in futures.items()}
        if batched:
            list(pool.map(batch_job, lps))
    details = {m: {lp: outcomes[m, lp][0] for lp in lps} for m in metrics}
    notes += [f"{m} {lp}: {r.note}" for m, per_lp in details.items() for lp, r in per_lp.items() if r.note]
    inputs = {key: value[1] for key, value in outcomes.items() if value[1] is not None}
    columns = protocol.columns(lps) + (["coverage"] if coverage_limited else [])
    rows = [summarize(m, details[m], tasks, coverage_limited) for m in metrics]
    table = pd.DataFrame(rows).reindex(columns=columns)
    table = table.sort_values("avg_corr", ascending=False, na_position="last", kind="stable").reset_index(drop=True)
    return MetaEvalTable(table, details, protocol, tasks, inputs, notes, coverage_limited)

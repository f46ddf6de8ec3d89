"""The WMT23 primary meta-evaluation table (Freitag et al., 2023), computed exactly.

Tasks, in mt-metrics-eval's order and weights (task 1 weighs len(lps), the others 1):
1. system-level pairwise accuracy pooled over the language pairs;
then per language pair: system-level Pearson, segment-level Pearson over all rated cells
(no grouping), segment-level acc-t grouped by item (tie calibration, sample rate 1.0).
Pearson r enters the average as (r + 1) / 2.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from tribunal.eval.data.mtme import LanguagePair
from tribunal.eval.meta.correlation import PairIndex, pairwise_agreement, pearson, tie_calibrated_accuracy

TASK_SUFFIXES = ("sys_pearson", "seg_pearson", "seg_acc_t")
WMT23_LPS = ("en-de", "he-en", "zh-en")


def table_columns(lps: tuple[str, ...] = WMT23_LPS) -> list[str]:
    """Columns of the results table, in order."""
    return ["metric", "avg_corr", "sys_acc"] + [f"{lp}_{s}" for lp in lps for s in TASK_SUFFIXES]


@dataclass
class LpResult:
    """The three per-LP task values of one metric plus its share of task 1."""

    sys_pearson: float = float("nan")
    seg_pearson: float = float("nan")
    seg_acc_t: float = float("nan")
    epsilon: float = float("nan")
    agree: int = 0
    pairs: int = 0
    problems: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class GoldMatrices:
    """Gold scores of one LP aligned to its scored systems: sys vector and (items x systems)."""

    systems: list[str]
    sys: np.ndarray
    seg: np.ndarray
    pairs: PairIndex

    @classmethod
    def from_pair(cls, pair: LanguagePair) -> "GoldMatrices":
        systems = pair.scored_systems()
        sys = np.array([pair.gold_sys[s] for s in systems])
        seg = np.stack([pair.gold_seg.get(s, np.full(pair.n_segments, np.nan)) for s in systems], axis=1)
        return cls.from_arrays(systems, sys, seg)

    @classmethod
    def from_arrays(cls, systems: list[str], sys: np.ndarray, seg: np.ndarray) -> "GoldMatrices":
        """Gold matrices from arrays (e.g. restricted to the items a judge covered: NaN the rest)."""
        return cls(list(systems), np.asarray(sys, float), np.asarray(seg, float), PairIndex.build(seg))


@dataclass
class AlignedMetric:
    """A metric's scores aligned to the gold matrices; None where they could not be aligned."""

    sys: np.ndarray | None
    seg: np.ndarray | None
    problems: list[str]


def align_metric(
    gold: GoldMatrices, metric_sys: dict[str, float] | None, metric_seg: dict[str, np.ndarray] | None
) -> AlignedMetric:
    """Align system and segment scores to the gold systems; a missing system or rated cell is a problem."""
    aligned = AlignedMetric(None, None, [])
    if metric_sys is None:
        aligned.problems.append("no .sys.score file")
    else:
        missing = [s for s in gold.systems if np.isnan(metric_sys.get(s, np.nan))]
        if missing:
            aligned.problems.append(f"no system score for {', '.join(missing)}")
        else:
            aligned.sys = np.array([metric_sys[s] for s in gold.systems])
    if metric_seg is None:
        aligned.problems.append("no .seg.score file")
        return aligned
    missing = [s for s in gold.systems if s not in metric_seg]
    if missing:
        aligned.problems.append(f"no segment scores for {', '.join(missing)}")
        return aligned
    seg = np.stack([metric_seg[s] for s in gold.systems], axis=1)
    holes = int((~np.isnan(gold.seg) & np.isnan(seg)).sum())
    if holes:
        aligned.problems.append(f"{holes} rated segment(s) without a metric score")
    else:
        aligned.seg = seg
    return aligned


def evaluate_metric_lp(
    gold: GoldMatrices, metric_sys: dict[str, float] | None, metric_seg: dict[str, np.ndarray] | None
) -> LpResult:
    """Compute one metric's per-LP tasks; missing systems or rated cells make them NaN."""
    aligned = align_metric(gold, metric_sys, metric_seg)
    result = LpResult(problems=aligned.problems)
    if aligned.sys is not None:
        result.sys_pearson = pearson(gold.sys, aligned.sys)
        result.agree, result.pairs = pairwise_agreement(gold.sys, aligned.sys)
    if aligned.seg is not None:
        result.seg_pearson = pearson(gold.seg, aligned.seg)
        # align_metric guarantees a metric score on every rated cell, so the gold pair index applies.
        result.seg_acc_t, result.epsilon = tie_calibrated_accuracy(gold.pairs.table(aligned.seg))
    return result


def summarize(metric: str, per_lp: dict[str, LpResult], lps: tuple[str, ...] = WMT23_LPS) -> dict:
    """One table row: raw task values and the weighted average of the selected LPs."""
    row: dict[str, object] = {"metric": metric}
    agree = sum(r.agree for r in per_lp.values())
    pairs = sum(r.pairs for r in per_lp.values())
    complete = all(r.pairs for r in per_lp.values())
    row["sys_acc"] = agree / pairs if complete and pairs else float("nan")
    parts = [(len(per_lp), row["sys_acc"])]
    for lp in lps:
        result = per_lp.get(lp)
        for suffix in TASK_SUFFIXES:
            row[f"{lp}_{suffix}"] = getattr(result, suffix) if result else float("nan")
        if result:
            parts += [(1, (result.sys_pearson + 1) / 2), (1, (result.seg_pearson + 1) / 2), (1, result.seg_acc_t)]
    total_weight = sum(w for w, _ in parts)
    row["avg_corr"] = sum(w * v for w, v in parts) / total_weight
    return row


def wmt23_table(
    pairs: dict[str, LanguagePair], metrics: list[str] | None = None, workers: int | None = None
) -> tuple[pd.DataFrame, dict[str, dict[str, LpResult]]]:
    """The WMT23 table over ``pairs`` for base metric names (all present ones by default).

    Returns the table sorted by ``avg_corr`` and the per-metric, per-LP details.
    """
    lps = tuple(sorted(pairs))
    golds = {lp: GoldMatrices.from_pair(pair) for lp, pair in pairs.items()}
    if metrics is None:
        metrics = sorted(set().union(*(set(p.base_metrics()) for p in pairs.values())))

    def job(metric: str, lp: str) -> LpResult:
        pair = pairs[lp]
        full = pair.resolve_metric(metric)
        if full is None:
            return LpResult(problems=[f"no {metric}-{pair.conventions.std_ref(lp)} or {metric}-src scores"])
        return evaluate_metric_lp(golds[lp], pair.metric_sys(full), pair.metric_seg(full))

    # File parsing and sorting release the GIL, so threads use every core.
    with ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
        futures = {(m, lp): pool.submit(job, m, lp) for m in metrics for lp in pairs}
    details = {m: {lp: futures[m, lp].result() for lp in pairs} for m in metrics}
    columns = table_columns(WMT23_LPS if set(lps) <= set(WMT23_LPS) else lps)
    rows = [summarize(m, details[m], tuple(c for c in WMT23_LPS if c in lps) or lps) for m in metrics]
    table = pd.DataFrame(rows).reindex(columns=columns)
    table = table.sort_values("avg_corr", ascending=False, na_position="last", kind="stable")
    return table.reset_index(drop=True), details

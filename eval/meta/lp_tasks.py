"""Per-language-pair inputs and task values: gold matrices, a metric aligned to them, its results.

Conventions (mt-metrics-eval's): only cells with a gold score count; system-level metric scores
come from ``.sys.score`` files (corpus-level metrics are not means of segment scores), except for
SPA, which by definition sums segment scores; a metric lacking a system or a rated cell is
reported and the affected tasks left empty, never computed on a silently smaller set (unless
coverage-limited results are asked for, see :func:`covered_inputs`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from tribunal.eval.data.errors import DataFormatError
from tribunal.eval.data.mtme import LanguagePair
from tribunal.eval.meta.correlation import PairIndex, pairwise_agreement, pearson, tie_calibrated_accuracy
from tribunal.eval.meta.spa import pairwise_p_values, pairwise_p_values_many, soft_pairwise_accuracy

WMT23_KINDS = ("sys_pearson", "seg_pearson", "seg_acc_t")


@dataclass
class LpResult:
    """One metric's task values on one language pair, plus its share of pooled accuracy."""

    sys_pearson: float = float("nan")
    seg_pearson: float = float("nan")
    seg_acc_t: float = float("nan")
    sys_spa: float = float("nan")
    epsilon: float = float("nan")
    agree: int = 0
    pairs: int = 0
    coverage: float = 1.0
    note: str = ""
    problems: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class GoldMatrices:
    """Gold scores of one LP aligned to its scored systems: sys vector and (items x systems)."""

    systems: list[str]
    sys: np.ndarray
    seg: np.ndarray
    pairs: PairIndex

    @classmethod
    def from_pair(cls, pair: LanguagePair, need_sys: bool = True) -> "GoldMatrices":
        """Every system with a gold system or segment score (outliers and references as the conventions say).

        With ``need_sys`` a system that has gold segment scores but no gold system score is an
        error naming the file, never a silently smaller set.
        """
        rated = pair.rated_systems()
        scored = pair.scored_systems() if need_sys else []
        missing = sorted(set(rated) - set(scored)) if need_sys else []
        if missing:
            raise DataFormatError(pair._human("sys.score"), None,
                                  f"no gold score for {', '.join(missing)}, which ha"
                                  f"{'s' if len(missing) == 1 else 've'} gold segment scores")
        systems = sorted(set(rated) | set(scored))
        sys = np.array([pair.gold_sys.get(s, np.nan) if need_sys else np.nan for s in systems], float)
        seg = np.stack([pair.gold_seg.get(s, np.full(pair.n_segments, np.nan)) for s in systems], axis=1)
        return cls.from_arrays(systems, sys, seg)

    @classmethod
    def from_arrays(cls, systems: list[str], sys: np.ndarray, seg: np.ndarray) -> "GoldMatrices":
        """Gold matrices from arrays (e.g. restricted to the items a judge covered: NaN the rest)."""
        return cls(list(systems), np.asarray(sys, float), np.asarray(seg, float), PairIndex.build(seg))

    @cached_property
    def spa_cells(self) -> tuple[np.ndarray, np.ndarray]:
        """(rows, columns) SPA uses: systems with a rated cell, segments rated for all of them."""
        rated = ~np.isnan(self.seg)
        columns = np.flatnonzero(rated.any(axis=0))
        rows = np.flatnonzero(rated[:, columns].all(axis=1))
        return rows, columns

    @cached_property
    def spa_note(self) -> str | None:
        """Says how many partly rated segments SPA leaves out (None when every rated segment is in)."""
        rows, columns = self.spa_cells
        partly = int((~np.isnan(self.seg[:, columns])).any(axis=1).sum()) - len(rows)
        if not partly:
            return None
        return f"SPA uses the {len(rows)} segments rated for every system; {partly} partly rated ones are left out"

    @cached_property
    def spa_p_values(self) -> np.ndarray:
        rows, columns = self.spa_cells
        return pairwise_p_values(self.seg[np.ix_(rows, columns)])


@dataclass
class AlignedMetric:
    """A metric's scores aligned to the gold matrices; None where they could not be aligned."""

    sys: np.ndarray | None
    seg: np.ndarray | None
    problems: list[str]


def align_metric(
    gold: GoldMatrices, metric_sys: dict[str, float] | None, metric_seg: dict[str, np.ndarray] | None,
    need_sys: bool = True,
) -> AlignedMetric:
    """Align system and segment scores to the gold systems; a missing system or rated cell is a problem."""
    aligned = AlignedMetric(None, None, [])
    if need_sys and metric_sys is None:
        aligned.problems.append("no .sys.score file")
    elif need_sys:
        missing = [s for s in gold.systems if np.isnan(metric_sys.get(s, np.nan))]
        if missing:
            aligned.problems.append(f"no system score for {', '.join(missing)}")
        else:
            aligned.sys = np.array([metric_sys[s] for s in gold.systems])
    if metric_seg is None:
        aligned.problems.append("no .seg.score file")
        return aligned
    rated = ~np.isnan(gold.seg).all(axis=0)
    missing = [s for s, r in zip(gold.systems, rated) if r and s not in metric_seg]
    if missing:
        aligned.problems.append(f"no segment scores for {', '.join(missing)}")
        return aligned
    blank = np.full(gold.seg.shape[0], np.nan)
    seg = np.stack([metric_seg.get(s, blank) for s in gold.systems], axis=1)
    holes = int((~np.isnan(gold.seg) & np.isnan(seg)).sum())
    if holes:
        aligned.problems.append(f"{holes} rated segment(s) without a metric score")
    else:
        aligned.seg = seg
    return aligned


def results_from_aligned(gold: GoldMatrices, aligned: AlignedMetric, kinds=WMT23_KINDS) -> LpResult:
    """The task values ``kinds`` (LpResult field names) of an aligned metric."""
    result = LpResult(problems=list(aligned.problems))
    if aligned.sys is not None:
        if "sys_pearson" in kinds:
            result.sys_pearson = pearson(gold.sys, aligned.sys)
        result.agree, result.pairs = pairwise_agreement(gold.sys, aligned.sys)
    if aligned.seg is not None:
        if "seg_pearson" in kinds:
            result.seg_pearson = pearson(gold.seg, aligned.seg)
        if "seg_acc_t" in kinds:
            # align_metric guarantees a metric score on every rated cell, so the gold pair index applies.
            result.seg_acc_t, result.epsilon = tie_calibrated_accuracy(gold.pairs.table(aligned.seg))
        if "sys_spa" in kinds:
            result.sys_spa = spa_of_metrics(gold, [aligned.seg])[0]
    return result


SPA_BATCH = 32
"""Metrics whose permutation sums one matrix product computes (bounds memory with many metrics)."""


def spa_of_metrics(gold: GoldMatrices, segs: list[np.ndarray]) -> list[float]:
    """SPA of several metrics' (items x systems) scores aligned to ``gold``: one permutation pass per batch.

    The gold p-values are computed once (cached on ``gold``); every metric's are decided exactly
    as for one metric alone (:func:`spa.pairwise_p_values_many`).
    """
    cells = np.ix_(*gold.spa_cells)
    values = []
    for start in range(0, len(segs), SPA_BATCH):
        metric_p = pairwise_p_values_many(np.stack([seg[cells] for seg in segs[start:start + SPA_BATCH]]))
        values += [soft_pairwise_accuracy(gold.spa_p_values, p) for p in metric_p]
    return values


def evaluate_metric_lp(
    gold: GoldMatrices, metric_sys: dict[str, float] | None, metric_seg: dict[str, np.ndarray] | None,
    kinds=WMT23_KINDS,
) -> LpResult:
    """Compute one metric's per-LP tasks; missing systems or rated cells make them NaN."""
    need_sys = "sys_pearson" in kinds
    return results_from_aligned(gold, align_metric(gold, metric_sys, metric_seg, need_sys), kinds)


def covered_inputs(
    gold: GoldMatrices, metric_seg: dict[str, np.ndarray] | None,
) -> tuple[GoldMatrices, AlignedMetric, int, int] | None:
    """Gold and metric restricted to the rated cells the metric covers (coverage-limited results).

    System scores of both become means over the covered cells. Returns (gold, metric, share of
    rated cells covered), or None when fewer than two systems have a covered cell.
    """
    if metric_seg is None:
        return None
    blank = np.full(gold.seg.shape[0], np.nan)
    seg = np.stack([metric_seg.get(s, blank) for s in gold.systems], axis=1)
    rated = ~np.isnan(gold.seg)
    covered = rated & ~np.isnan(seg)
    keep = covered.any(axis=0)
    if keep.sum() < 2:
        return None
    gold_seg = np.where(covered, gold.seg, np.nan)[:, keep]
    metric = np.where(covered, seg, np.nan)[:, keep]
    systems = [s for s, k in zip(gold.systems, keep) if k]
    restricted = GoldMatrices.from_arrays(systems, np.nanmean(gold_seg, axis=0), gold_seg)
    aligned = AlignedMetric(np.nanmean(metric, axis=0), metric, [])
    return restricted, aligned, int(covered.sum()), int(rated.sum())

"""Per-language-pair inputs and task values: gold matrices, a metric aligned to them, its results.

Conventions (mt-metrics-eval's): only cells with a gold score count; system-level metric scores
come from ``.sys.score`` files (corpus-level metrics are not means of segment scores), except for
SPA, which by definition sums segment scores; a metric lacking a system or a rated cell is
reported and the affected tasks left empty, never computed on a silently smaller set (unless
coverage-limited results are asked for, see :func:`covered_inputs`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from tribunal.data.errors import DataFormatError
from tribunal.data.mtme import LanguagePair
from tribunal.eval.meta.correlation import PairIndex
from tribunal.eval.meta.inputs import INPUTS
from tribunal.eval.meta.spa import pairwise_p_values
from tribunal.eval.meta.statistic import Statistic, split_value
from tribunal.eval.meta.statistics import STATISTICS, per_lp_tasks, pooled_tasks


@dataclass
class LpResult:
    """One metric's statistics on one language pair (by key), their extras (``epsilon``, ``agree``, ...).

    ``result.seg_acc_t`` reads ``values["seg_acc_t"]`` (NaN when not computed), ``result.epsilon`` an extra.
    """

    values: dict[str, float] = field(default_factory=dict)
    extras: dict[str, dict[str, float]] = field(default_factory=dict)
    coverage: float = 1.0
    note: str = ""
    problems: list[str] = field(default_factory=list)

    def value(self, key: str) -> float:
        """The statistic ``key``'s value (NaN when not computed)."""
        return self.values.get(key, math.nan)

    def extra(self, name: str) -> float:
        """An extra value of any computed statistic (NaN when none has it)."""
        return next((e[name] for e in self.extras.values() if name in e), math.nan)

    def __getattr__(self, name: str) -> float:
        if name.startswith("_") or name not in STATISTICS and not any(name in s.extras for s in STATISTICS.values()):
            raise AttributeError(name)
        return self.value(name) if name in STATISTICS else self.extra(name)

    def record(self, key: str, value: object) -> None:
        """Store a statistic's function's return value (a value, or a value and its extras)."""
        self.values[key], extras = split_value(value)
        if extras:
            self.extras[key] = extras


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


def default_kinds() -> tuple[str, ...]:
    """The statistics of the WMT23 table and the run report (the default of :func:`results_from_aligned`)."""
    chosen = per_lp_tasks("wmt23") + pooled_tasks("wmt23") + per_lp_tasks("run")
    return tuple(dict.fromkeys(s.key for s in chosen))


def needs_sys_scores(kinds: tuple[str, ...] | set[str]) -> bool:
    """Whether any of the statistics ``kinds`` reads system-level scores."""
    return any(INPUTS[STATISTICS[k].inputs].needs_sys_scores for k in kinds)


def compute(stat: Statistic, gold: GoldMatrices, aligned: AlignedMetric) -> object:
    """A statistic's function on one metric aligned to ``gold`` (its batched form when it has one, so a
    value never depends on how many metrics were computed together)."""
    inputs = INPUTS[stat.inputs]
    gold_side, metric_side = inputs.gold(gold), inputs.metric(gold, aligned)
    return stat.many(gold_side, [metric_side])[0] if stat.many else stat.function(gold_side, metric_side)


def results_from_aligned(gold: GoldMatrices, aligned: AlignedMetric, kinds=None) -> LpResult:
    """The statistics ``kinds`` (keys; default :func:`default_kinds`) of an aligned metric.

    A statistic whose inputs the metric lacks (no system scores, say) is left out (NaN).
    """
    result = LpResult(problems=list(aligned.problems))
    for key in (default_kinds() if kinds is None else kinds):
        stat = STATISTICS[key]
        if INPUTS[stat.inputs].available(aligned):
            result.record(key, compute(stat, gold, aligned))
    return result


def many_of_metrics(stat: Statistic, gold: GoldMatrices, aligned: list[AlignedMetric]) -> list[object]:
    """A batched statistic (``stat.many``) of several metrics aligned to ``gold``: one pass for all."""
    inputs = INPUTS[stat.inputs]
    return stat.many(inputs.gold(gold), [inputs.metric(gold, a) for a in aligned])


def evaluate_metric_lp(
    gold: GoldMatrices, metric_sys: dict[str, float] | None, metric_seg: dict[str, np.ndarray] | None,
    kinds=None,
) -> LpResult:
    """Compute one metric's per-LP statistics ``kinds`` (default :func:`default_kinds`); missing systems or
    rated cells make them NaN."""
    kinds = default_kinds() if kinds is None else kinds
    return results_from_aligned(gold, align_metric(gold, metric_sys, metric_seg, needs_sys_scores(kinds)), kinds)


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

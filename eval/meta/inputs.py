"""What a statistic reads of one language pair: its gold side and a metric's side, by name.

A statistic declares ``inputs="sys"`` (say); its function is called ``function(gold side, metric
side)``. The gold side is computed from :class:`~tribunal.eval.meta.lp_tasks.GoldMatrices` alone
(so it is shared by every metric), the metric side from the metric's
:class:`~tribunal.eval.meta.lp_tasks.AlignedMetric` (None when the metric lacks that level).
``units`` flattens both into paired per-unit vectors (the units a permutation swaps).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

if TYPE_CHECKING:
    from tribunal.eval.meta.lp_tasks import AlignedMetric, GoldMatrices


@dataclass(frozen=True)
class Inputs:
    """One kind of input: how to read the gold side and a metric's side, whether it needs ``.sys.score`` files."""

    name: str
    gold: Callable[["GoldMatrices"], Any]
    metric: Callable[["GoldMatrices", "AlignedMetric"], Any]
    units: Callable[["GoldMatrices", "AlignedMetric"], tuple[np.ndarray, np.ndarray]]
    needs_sys_scores: bool = False
    description: str = ""
    note: Callable[["GoldMatrices"], str | None] = lambda gold: None
    """What the table says about the cells this kind leaves out of a pair (None: nothing)."""

    def available(self, aligned: "AlignedMetric") -> bool:
        """Whether the metric has the scores this kind reads."""
        return (aligned.sys if self.needs_sys_scores else aligned.seg) is not None


def _rated_units(gold: "GoldMatrices", aligned: "AlignedMetric") -> tuple[np.ndarray, np.ndarray]:
    rated = ~np.isnan(gold.seg)
    return gold.seg[rated], aligned.seg[rated]


def _spa_cells(gold: "GoldMatrices") -> tuple[np.ndarray, np.ndarray]:
    return np.ix_(*gold.spa_cells)


def _spa_units(gold: "GoldMatrices", aligned: "AlignedMetric") -> tuple[np.ndarray, np.ndarray]:
    cells = _spa_cells(gold)
    return gold.seg[cells].ravel(), aligned.seg[cells].ravel()


INPUTS: dict[str, Inputs] = {i.name: i for i in (
    Inputs("sys", lambda gold: gold.sys, lambda gold, aligned: aligned.sys,
           lambda gold, aligned: (gold.sys, aligned.sys), needs_sys_scores=True,
           description="system scores (.sys.score files), one per system"),
    Inputs("cells", lambda gold: gold.seg, lambda gold, aligned: aligned.seg, _rated_units,
           description="(items x systems) segment scores, NaN where the gold is unrated"),
    Inputs("pairs", lambda gold: gold.pairs, lambda gold, aligned: aligned.seg, _rated_units,
           description="the gold's within-item system pairs (PairIndex) and the metric's segment scores"),
    Inputs("spa", lambda gold: gold.spa_p_values, lambda gold, aligned: aligned.seg[_spa_cells(gold)], _spa_units,
           note=lambda gold: gold.spa_note,
           description="the gold's pairwise p-values and the metric's scores on the segments rated for every system"),
)}
"""Every kind of input by name."""

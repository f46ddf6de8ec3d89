"""The WMT23 primary meta-evaluation table (Freitag et al., 2023), computed exactly.

Tasks, in mt-metrics-eval's order and weights (task 1 weighs len(lps), the others 1):
1. system-level pairwise accuracy pooled over the language pairs;
then per language pair: system-level Pearson, segment-level Pearson over all rated cells
(no grouping), segment-level acc-t grouped by item (tie calibration, sample rate 1.0).
Pearson r enters the average as (r + 1) / 2.

The work is done by :mod:`table` (any protocol) and :mod:`lp_tasks` (per language pair); this
module keeps the WMT23 entry points the golden tests call (tests only: the CLI runs the protocol registry).
"""

from __future__ import annotations

import pandas as pd

from tribunal.data.mtme import LanguagePair
from tribunal.eval.meta.lp_tasks import (  # noqa: F401  (re-exported)
    AlignedMetric,
    GoldMatrices,
    LpResult,
    align_metric,
    evaluate_metric_lp,
)
from tribunal.eval.meta.protocols import WMT23
from tribunal.eval.meta.table import meta_eval_table

TASK_SUFFIXES = ("sys_pearson", "seg_pearson", "seg_acc_t")
WMT23_LPS = ("en-de", "he-en", "zh-en")


def table_columns(lps: tuple[str, ...] = WMT23_LPS) -> list[str]:
    """Columns of the results table for the selected language pairs, in order."""
    return WMT23.columns(lps)


def wmt23_table(
    pairs: dict[str, LanguagePair], metrics: list[str] | None = None, workers: int | None = None
) -> tuple[pd.DataFrame, dict[str, dict[str, LpResult]]]:
    """The WMT23 table over ``pairs`` for base metric names (all present ones by default).

    Returns the table sorted by ``avg_corr`` and the per-metric, per-LP details.
    """
    result = meta_eval_table(pairs, metrics, WMT23, workers)
    return result.table, result.details

"""Threshold sweep for similarity rules: share judged different per kind at each threshold."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from tribunal.eval.equiv.checks import PERTURBATION_KINDS

DEFAULT_GRID = tuple(round(t, 2) for t in np.arange(0.0, 1.0001, 0.05))


def threshold_sweep(kinds: Sequence[str], scores: Sequence[float], grid: Sequence[float] = DEFAULT_GRID) -> pd.DataFrame:
    """Rows: threshold; columns: share judged different (score < threshold) per kind, and
    balanced accuracy against the expected labels (mean of the four kinds' correct shares)."""
    kinds_arr, scores_arr = np.asarray(kinds), np.asarray(scores, dtype=float)
    rows = []
    for threshold in grid:
        row: dict[str, float] = {"threshold": float(threshold)}
        correct = []
        for kind in PERTURBATION_KINDS:
            mask = kinds_arr == kind
            share = float(np.mean(scores_arr[mask] < threshold)) if mask.any() else np.nan
            row[kind] = share
            if mask.any():
                correct.append(share if kind.endswith("swapped") else 1 - share)
        row["balanced_accuracy"] = float(np.mean(correct)) if correct else np.nan
        rows.append(row)
    return pd.DataFrame(rows)


def sweep_figure(table: pd.DataFrame, label: str, threshold: float):
    """A matplotlib figure of the sweep, the configured threshold marked."""
    from matplotlib.figure import Figure  # no pyplot: no global figure state, no GUI backend

    figure = Figure(figsize=(6.5, 4))
    axes = figure.subplots()
    for column in [*PERTURBATION_KINDS, "balanced_accuracy"]:
        style = "--" if column == "balanced_accuracy" else "-"
        axes.plot(table["threshold"], table[column], style, marker=".", label=column)
    axes.axvline(threshold, color="grey", linestyle=":", label=f"threshold {threshold:g}")
    axes.set_xlabel("cosine threshold (same if score >= threshold)")
    axes.set_ylabel("share judged different")
    axes.set_ylim(-0.02, 1.02)
    axes.set_title(f"{label}: threshold sweep")
    axes.legend(fontsize=7, loc="best")
    figure.tight_layout()
    return figure

"""Threshold sweep for score-and-threshold rules: share judged different per kind at each threshold."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from tribunal.eval.equiv.checks import EXPECTED_SAME, PERTURBATION_KINDS

DEFAULT_GRID = tuple(round(t, 2) for t in np.arange(0.0, 1.0001, 0.05))


def ordered_kinds(kinds: Sequence[str]) -> list[str]:
    """The suite's four kinds first (in their usual order), then any other kind by first appearance."""
    present = list(dict.fromkeys(kinds))
    return [k for k in PERTURBATION_KINDS if k in present] + [k for k in present if k not in PERTURBATION_KINDS]


def threshold_sweep(kinds: Sequence[str], scores: Sequence[float | None], grid: Sequence[float] = DEFAULT_GRID,
                    expected_same: Sequence[bool] | None = None) -> pd.DataFrame:
    """Rows: threshold; columns: share judged different (score < threshold) per kind, and balanced
    accuracy against the labels: the mean of the same-labelled pairs' share judged same and the
    different-labelled pairs' share judged different (with the suite's equal-sized kinds, the mean
    of the four kinds' correct shares). Labels default to the kinds' own (``EXPECTED_SAME``);
    unscored pairs (``None``) are left out."""
    if expected_same is None:
        expected_same = [EXPECTED_SAME[k] for k in kinds]
    keep = [i for i, s in enumerate(scores) if s is not None and s == s]
    kinds_arr = np.asarray([kinds[i] for i in keep], dtype=object)
    labels = np.asarray([bool(expected_same[i]) for i in keep], dtype=bool)
    scores_arr = np.asarray([scores[i] for i in keep], dtype=float)
    rows = []
    for threshold in grid:
        different = scores_arr < threshold
        row: dict[str, float] = {"threshold": float(threshold)}
        for kind in ordered_kinds(list(kinds)):
            mask = kinds_arr == kind
            row[kind] = float(np.mean(different[mask])) if mask.any() else np.nan
        correct = [float(np.mean(~different[labels])) if labels.any() else np.nan,
                   float(np.mean(different[~labels])) if (~labels).any() else np.nan]
        row["balanced_accuracy"] = float(np.nanmean(correct)) if not all(np.isnan(correct)) else np.nan
        rows.append(row)
    return pd.DataFrame(rows)


def best_threshold(table: pd.DataFrame) -> float:
    """The grid threshold of highest balanced accuracy; ties: the middle of the tied thresholds
    (rounded down to the grid), so a plateau is not decided by its edge."""
    best = table["balanced_accuracy"].max()
    tied = table.loc[np.isclose(table["balanced_accuracy"], best), "threshold"].to_numpy()
    return float(tied[(len(tied) - 1) // 2])


def sweep_figure(table: pd.DataFrame, label: str, threshold: float):
    """A matplotlib figure of the sweep, the configured threshold marked."""
    from matplotlib.figure import Figure  # no pyplot: no global figure state, no GUI backend

    figure = Figure(figsize=(6.5, 4))
    axes = figure.subplots()
    for column in [c for c in table.columns if c != "threshold"]:
        style = "--" if column == "balanced_accuracy" else "-"
        axes.plot(table["threshold"], table[column], style, marker=".", label=column)
    if threshold == threshold:
        axes.axvline(threshold, color="grey", linestyle=":", label=f"threshold {threshold:g}")
    axes.set_xlabel("score threshold (same if score >= threshold)")
    axes.set_ylabel("share judged different")
    axes.set_ylim(-0.02, 1.02)
    axes.set_title(f"{label}: threshold sweep")
    axes.legend(fontsize=7, loc="best")
    figure.tight_layout()
    return figure

"""Significance clusters as a picture: each ranked column's metrics as bars, coloured by cluster.

A :class:`~tribunal.eval.meta.clusters.Ranking` orders metrics by value and gives each the rank of
its significance cluster (rank 1: no metric above it wins with p <= alpha). One panel per ranked
column: a horizontal bar per metric (best at the top), the bar's colour its cluster, the rank
written beside the value, and a line between two clusters.
"""

from __future__ import annotations

import math
from typing import Mapping

from tribunal.eval.meta.clusters import Ranking

PANEL_COLUMNS = 2
CLUSTER_COLOURS = ("#2b6cb0", "#63b3ed", "#f6ad55", "#c05621", "#9f7aea", "#48bb78", "#a0aec0")


def cluster_colour(rank: int) -> str:
    """The colour of cluster ``rank`` (1-based; the palette repeats past its end)."""
    return CLUSTER_COLOURS[(rank - 1) % len(CLUSTER_COLOURS)]


def clusters_figure(rankings: Mapping[str, Ranking], title: str = "significance clusters"):
    """A matplotlib Figure with one panel per ranked column (``rankings``: column -> Ranking)."""
    from matplotlib.figure import Figure  # no pyplot: no global figure state, no GUI backend

    if not rankings:
        raise ValueError("no ranked column: significance clusters need --significance N > 0")
    columns = list(rankings)
    rows = math.ceil(len(columns) / PANEL_COLUMNS)
    width = min(len(columns), PANEL_COLUMNS)
    tallest = max(len(r.metrics) for r in rankings.values())
    figure = Figure(figsize=(5.2 * width, 0.6 + rows * (0.28 * tallest + 0.9)))
    panels = figure.subplots(rows, width, squeeze=False).ravel()
    for axes, column in zip(panels, columns):
        _panel(axes, rankings[column])
    for axes in panels[len(columns):]:
        axes.set_visible(False)
    figure.suptitle(title, fontsize=11)
    figure.tight_layout()
    return figure


def _panel(axes, ranking: Ranking) -> None:
    positions = list(range(len(ranking.metrics)))[::-1]  # best at the top
    values = [float(v) for v in ranking.values]
    axes.barh(positions, values, color=[cluster_colour(r) for r in ranking.ranks])
    for y, value, rank in zip(positions, values, ranking.ranks):
        axes.text(value, y, f" {value:.3f} ({rank})", va="center", fontsize=7)
    for index in range(1, len(ranking.ranks)):
        if ranking.ranks[index] != ranking.ranks[index - 1]:
            axes.axhline(positions[index] + 0.5, color="black", linewidth=0.6, linestyle="--")
    axes.set_yticks(positions, ranking.metrics, fontsize=7)
    finite = [v for v in values if math.isfinite(v)]
    if finite:
        axes.set_xlim(min(0.0, min(finite)), max(finite) * 1.25 if max(finite) > 0 else 1.0)
    axes.set_title(f"{ranking.column}: {max(ranking.ranks, default=0)} cluster(s)", fontsize=9)
    axes.tick_params(axis="x", labelsize=7)

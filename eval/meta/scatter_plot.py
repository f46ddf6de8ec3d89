"""The judge against the humans, segment by segment: a scatter of MQM scores (the picture behind seg Pearson).

Each point is one rated cell (a system's translation of one source segment) that the judge scored:
x the human MQM score, y the judge's. Identical pairs are drawn once, sized by how many there are
(MQM scores are coarse, so many cells share a point). The title gives the cell count and Pearson's
r, "undefined" when a side is constant or there are fewer than two cells.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Sequence

import numpy as np


def paired_scores(judge: Sequence[float], human: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """The cells both sides scored (finite values only), as two float arrays."""
    judge_array, human_array = np.asarray(judge, float).ravel(), np.asarray(human, float).ravel()
    if judge_array.shape != human_array.shape:
        raise ValueError(f"judge and human scores differ in length ({judge_array.size} vs {human_array.size})")
    both = np.isfinite(judge_array) & np.isfinite(human_array)
    return judge_array[both], human_array[both]


def pearson_text(judge: np.ndarray, human: np.ndarray) -> str:
    """Pearson's r to 3 decimals, or why it is undefined."""
    if judge.size < 2 or np.ptp(judge) == 0 or np.ptp(human) == 0:
        return "r undefined (fewer than 2 cells or a constant side)"
    value = float(np.corrcoef(human, judge)[0, 1])
    return f"r = {value:.3f}" if math.isfinite(value) else "r undefined"


def judge_human_scatter(judge: Sequence[float], human: Sequence[float], title: str = "judge vs human MQM"):
    """A matplotlib Figure: human MQM (x) against the judge's (y), the diagonal where they agree."""
    from matplotlib.figure import Figure  # no pyplot: no global figure state, no GUI backend

    judge_values, human_values = paired_scores(judge, human)
    counts = Counter(zip(human_values.tolist(), judge_values.tolist()))
    figure = Figure(figsize=(5, 4.5))
    axes = figure.subplots()
    if counts:
        xs, ys = zip(*counts)
        sizes = [18 + 14 * (n - 1) for n in counts.values()]
        axes.scatter(xs, ys, s=sizes, alpha=0.6, edgecolors="none")
        low = min(min(xs), min(ys), 0.0)
        axes.plot([low, 0], [low, 0], ":", color="grey", label="judge = human")
        axes.legend(fontsize=8, loc="lower right")
    axes.set_xlabel("human MQM score (0 = no error)")
    axes.set_ylabel("judge MQM score")
    axes.set_title(f"{title}\n{judge_values.size} cells; {pearson_text(judge_values, human_values)}", fontsize=10)
    figure.tight_layout()
    return figure

"""How a judge's MQM scores are distributed compared with the human ones on the same cells.

Reports summary statistics side by side, the share of error-free segments (MQM = 0), the
1-Wasserstein (earth mover's) distance and the two-sample Kolmogorov–Smirnov statistic (scipy).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class DistributionComparison:
    summary: pd.DataFrame
    wasserstein: float
    ks_statistic: float
    ks_p_value: float
    cells: int


def _summary(scores: np.ndarray) -> dict[str, float]:
    return {
        "mean": float(scores.mean()),
        "std": float(scores.std(ddof=1)) if len(scores) > 1 else float("nan"),
        "min": float(scores.min()),
        "p25": float(np.percentile(scores, 25)),
        "median": float(np.median(scores)),
        "p75": float(np.percentile(scores, 75)),
        "max": float(scores.max()),
        "share_zero": float((scores == 0).mean()),
    }


def compare_distributions(judge: np.ndarray, human: np.ndarray) -> DistributionComparison:
    """Compare judge and human MQM scores over the cells where both exist."""
    from scipy.stats import ks_2samp, wasserstein_distance  # heavy: scipy

    judge, human = np.asarray(judge, float).ravel(), np.asarray(human, float).ravel()
    both = ~(np.isnan(judge) | np.isnan(human))
    if not both.any():
        raise ValueError("no cell has both a judge and a human score")
    judge, human = judge[both], human[both]
    summary = pd.DataFrame({"judge": _summary(judge), "human": _summary(human)})
    ks = ks_2samp(judge, human)
    return DistributionComparison(
        summary, float(wasserstein_distance(judge, human)), float(ks.statistic), float(ks.pvalue), int(both.sum())
    )


def distribution_figure(judge: np.ndarray, human: np.ndarray, title: str = "MQM score distribution"):
    """Overlaid histograms of judge and human MQM scores (a matplotlib Figure)."""
    import matplotlib  # heavy: matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # heavy: matplotlib

    judge, human = np.asarray(judge, float).ravel(), np.asarray(human, float).ravel()
    both = ~(np.isnan(judge) | np.isnan(human))
    low = min(judge[both].min(), human[both].min())
    bins = np.linspace(low, 0, 26) if low < 0 else 25
    figure, axis = plt.subplots(figsize=(6, 4))
    axis.hist(human[both], bins=bins, alpha=0.6, label="human")
    axis.hist(judge[both], bins=bins, alpha=0.6, label="judge")
    axis.set_xlabel("MQM score (0 = no error)")
    axis.set_ylabel("segments")
    axis.set_title(title)
    axis.legend()
    figure.tight_layout()
    return figure

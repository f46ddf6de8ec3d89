"""Agreement of a judge with human labels, item by item: the statistics MLflow does not compute.

- Categorical labels (an equivalence verdict; an MT item's MQM band): the confusion matrix and
  Cohen's kappa (Cohen 1960, via scikit-learn); kappa is NaN with a note when undefined (chance
  agreement 1: one label everywhere), never an exception.
- Continuous scores (MQM): Pearson's r (:func:`tribunal.eval.meta.correlation.pearson`), NaN for fewer than two items or a constant side.

Unscored items (``None``) are left out and counted. MQM bands for MT: ``none`` (no error, score 0),
``minor`` (−5 < score < 0: minor errors only, less than one major), ``major`` (score ≤ −5): the cuts of
:mod:`tribunal.eval.meta.mqm_bands`, its critical band counted as major.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
import pandas as pd

from tribunal.eval.meta.correlation import pearson as pearson_r
from tribunal.eval.meta.mqm_bands import JUDGE_BANDS, judge_band

MQM_BANDS = JUDGE_BANDS


def mqm_band(score: float | None) -> str | None:
    """The band of an MQM score (``None`` for an unscored item): :func:`tribunal.eval.meta.mqm_bands.judge_band`."""
    return judge_band(score)


@dataclass
class JudgeHumanAgreement:
    items: int
    both: int
    accuracy: float
    kappa: float
    pearson: float
    confusion: pd.DataFrame  # rows: human label, columns: judge label
    notes: list[str] = field(default_factory=list)

    def metrics(self, prefix: str = "judge_vs_human.") -> dict[str, float]:
        values = {"items": self.items, "both_labelled": self.both, "accuracy": self.accuracy, "kappa": self.kappa,
                  "pearson": self.pearson}
        return {f"{prefix}{k}": float(v) for k, v in values.items()}


def agreement(judge: Sequence[Any], human: Sequence[Any], labels: Sequence[Any],
              judge_scores: Sequence[float | None] | None = None,
              human_scores: Sequence[float | None] | None = None) -> JudgeHumanAgreement:
    """Confusion matrix and kappa over the items both labelled; Pearson over the items both scored."""
    from sklearn.metrics import cohen_kappa_score, confusion_matrix  # heavy: sklearn, scipy

    if len(judge) != len(human):
        raise ValueError(f"judge and human label different numbers of items ({len(judge)} vs {len(human)})")
    notes = []
    both = [(j, h) for j, h in zip(judge, human) if j is not None and h is not None]
    names = [str(label) for label in labels]
    if both:
        matrix = confusion_matrix([h for _, h in both], [j for j, _ in both], labels=list(labels))
        accuracy = float(np.mean([j == h for j, h in both]))
    else:
        matrix, accuracy = np.zeros((len(labels), len(labels)), dtype=int), math.nan
        notes.append("no item labelled by both")
    used = {x for pair in both for x in pair}
    if len(used) < 2:
        kappa = math.nan
        if both:
            notes.append("kappa undefined: a single label occurs")
    else:
        kappa = float(cohen_kappa_score([h for _, h in both], [j for j, _ in both], labels=list(labels)))
    pearson = _pearson(judge_scores, human_scores, notes)
    frame = pd.DataFrame(matrix, index=[f"human:{n}" for n in names], columns=[f"judge:{n}" for n in names])
    return JudgeHumanAgreement(len(judge), len(both), accuracy, kappa, pearson, frame, notes)


def _pearson(judge: Sequence[float | None] | None, human: Sequence[float | None] | None, notes: list[str]) -> float:
    if judge is None or human is None:
        return math.nan
    pairs = np.array([(j, h) for j, h in zip(judge, human) if j is not None and h is not None
                      and math.isfinite(j) and math.isfinite(h)], dtype=float).reshape(-1, 2)
    r = pearson_r(pairs[:, 0], pairs[:, 1])
    if math.isnan(r):
        notes.append("pearson undefined: fewer than two items or a constant side")
    return r


def confusion_figure(result: JudgeHumanAgreement, title: str):
    """A heat map of the confusion matrix, counts written in the cells."""
    import matplotlib  # heavy: matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # heavy: matplotlib

    matrix = result.confusion.to_numpy()
    figure, axis = plt.subplots(figsize=(4.5, 4))
    axis.imshow(matrix, cmap="Blues")
    axis.set_xticks(range(matrix.shape[1]), [c.split(":", 1)[1] for c in result.confusion.columns])
    axis.set_yticks(range(matrix.shape[0]), [r.split(":", 1)[1] for r in result.confusion.index])
    axis.set_xlabel("judge")
    axis.set_ylabel("human")
    for (row, column), count in np.ndenumerate(matrix):
        axis.text(column, row, str(count), ha="center", va="center")
    axis.set_title(f"{title}\nkappa {result.kappa:.3f}, accuracy {result.accuracy:.3f}", fontsize=9)
    figure.tight_layout()
    return figure

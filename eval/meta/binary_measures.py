"""Measures of a binary error-free detector, their bootstrap intervals and significance clusters.

The positive class is **error-free** (label 1), as in WMT26's subtask 3. The task page's
evaluation section is not in the store (https://www2.statmt.org/wmt26/mteval-subtask3.html: the
stored text ends in its Submissions section); a participant's notes of the pages
(ogulcansarioglu/wmt26-task3, ``docs/task_facts.md``, 2026-07-16) record "MCC (primary);
precision/recall secondary" and that pooled versus per-language-pair MCC is "not stated". So:
``mcc`` (primary, ranks the table; over all cells of the pair pooled), ``precision`` and ``recall``
of the error-free class (secondary, per those notes), and tribunal's additions ``f1`` of the
error-free class, ``balanced_accuracy`` (mean of the two classes' recalls) and ``predicted_rate``
(share labelled error-free). A measure whose denominator is 0 is 0 (MCC with a constant prediction,
precision with no positive prediction), as scikit-learn's ``zero_division=0`` (tribunal's choice).

Intervals: percentile bootstrap over cells (resampled with replacement, 95 % by default).
Significance: WMT's paired permutation (PERM-BOTH): in each draw every cell swaps the two
detectors' labels with probability 1/2; :func:`mcc_nulls` feeds
:func:`~tribunal.eval.meta.clusters.ranking`, which reads p-values off the draws and cuts clusters.
"""

from __future__ import annotations

import numpy as np

MEASURES = ("mcc", "precision", "recall", "f1", "balanced_accuracy", "predicted_rate")


def _counts(gold: np.ndarray, pred: np.ndarray) -> tuple[np.ndarray, ...]:
    """tp, fp, fn, tn over the last axis (0/1 float arrays of one shape)."""
    tp = (gold * pred).sum(-1)
    fp = ((1 - gold) * pred).sum(-1)
    fn = (gold * (1 - pred)).sum(-1)
    tn = ((1 - gold) * (1 - pred)).sum(-1)
    return tp, fp, fn, tn


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    num, den = np.asarray(num, float), np.asarray(den, float)
    return np.divide(num, den, out=np.zeros_like(num + den), where=den > 0)


def mcc_of(gold: np.ndarray, pred: np.ndarray) -> np.ndarray:
    """Matthews correlation over the last axis (0 when a margin is empty)."""
    tp, fp, fn, tn = _counts(gold, pred)
    return _ratio(tp * tn - fp * fn, np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)))


def measures_of(gold: np.ndarray, pred: np.ndarray) -> dict[str, np.ndarray]:
    """Every measure of :data:`MEASURES` over the last axis."""
    tp, fp, fn, tn = _counts(gold, pred)
    precision, recall = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
    return {"mcc": mcc_of(gold, pred), "precision": precision, "recall": recall,
            "f1": _ratio(2 * precision * recall, precision + recall),
            "balanced_accuracy": (recall + _ratio(tn, tn + fp)) / 2,
            "predicted_rate": _ratio(tp + fp, tp + fp + fn + tn)}


def measures(gold: np.ndarray, pred: np.ndarray) -> dict[str, float]:
    """The measures of one detector (aligned 0/1 arrays, no NaN)."""
    return {k: float(v) for k, v in measures_of(np.asarray(gold, float), np.asarray(pred, float)).items()}


def bootstrap(gold: np.ndarray, pred: np.ndarray, samples: int = 1000, seed: int = 1234,
              level: float = 0.95) -> dict[str, tuple[float, float]]:
    """Percentile interval of each measure under resampling of cells with replacement."""
    gold, pred = np.asarray(gold, float), np.asarray(pred, float)
    index = np.random.default_rng(seed).integers(0, len(gold), size=(samples, len(gold)))
    drawn = measures_of(gold[index], pred[index])
    tail = (1 - level) / 2 * 100
    return {k: tuple(float(x) for x in np.percentile(v, [tail, 100 - tail])) for k, v in drawn.items()}


def mcc_nulls(gold: np.ndarray, preds: np.ndarray, samples: int, rng: np.random.Generator) -> np.ndarray:
    """``null[k, a, b] = MCC(hybrid_a) - MCC(hybrid_b)`` for a < b (NaN below), hybrid_a taking b's labels on
    the cells swapped in draw k; ``preds`` is detectors x cells."""
    n_metrics, n_cells = preds.shape
    null = np.full((samples, n_metrics, n_metrics), np.nan)
    swaps = rng.random((samples, n_cells)) < 0.5
    for a in range(n_metrics):
        for b in range(a + 1, n_metrics):
            hybrid_a = np.where(swaps, preds[b], preds[a])
            hybrid_b = np.where(swaps, preds[a], preds[b])
            null[:, a, b] = mcc_of(gold, hybrid_a) - mcc_of(gold, hybrid_b)
    return null

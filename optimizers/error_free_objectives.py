"""``optimize --objective`` for error-free detection (WMT26 subtask 3): MCC, balanced accuracy, F1.

Registered in :mod:`tribunal.optimizers.objectives` for MT judges: ``mcc-error-free`` (WMT26's primary
measure; a correlation, entering a mix as ``(r + 1) / 2``), ``balanced-accuracy-error-free`` and
``f1-error-free`` (the error-free class positive). The measures are ``mt meta-eval --task error-free``'s
(:mod:`tribunal.eval.meta.binary_measures`) and the labels come from the same rules
(:mod:`tribunal.eval.meta.error_free`):

- **gold**: a dev example's human MQM annotation, error-free when ``gold_errors`` holds no error
  (neutral ones aside); an example with a score only (``gold_errors`` None, an MLflow trace a person
  scored): error-free when ``gold_score >= 0`` (no penalty);
- **prediction**: :func:`~tribunal.eval.meta.error_free.from_judgment` of the prediction's errors, score
  and ``scale`` (the ``error-free`` judge's verdict is its score, 100 or 0 on ESA's scale);
- **unscored** (no prediction, no usable score): the wrong label, so a judge cannot win by not
  answering (as the equivalence objectives do).
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from tribunal.eval.meta.binary_measures import measures
from tribunal.eval.meta.error_free import from_judgment, mqm_error_free
from tribunal.optimizers.mt_metric import read_judgment


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def gold_label(gold: Any) -> float:
    """The example's error-free label (1.0 / 0.0) by the MQM gold rule; NaN without a score or spans."""
    errors = _get(gold, "gold_errors")
    if errors is not None:
        return mqm_error_free(tuple(errors))
    return from_judgment((), _get(gold, "gold_score"), "mqm")  # the score half: >= 0, no penalty


def predicted_label(pred: object) -> float:
    """The prediction's error-free label, NaN when it is unscored (no prediction, or no judgment:
    :func:`~tribunal.optimizers.mt_metric.read_judgment`)."""
    judgment = None if pred is None else read_judgment(pred)[0]
    if judgment is None:
        return math.nan
    return from_judgment(judgment.errors, judgment.score, judgment.scale or "mqm")


def labels(predictions: Sequence[Any], golds: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    """(gold, predicted) 0/1 arrays over the examples with a gold label; unscored -> the wrong label."""
    pairs = [(g, p) for g, p in ((gold_label(g), predicted_label(p)) for p, g in zip(predictions, golds))
             if not math.isnan(g)]
    gold = np.array([g for g, _ in pairs], float)
    said = np.array([1.0 - g if math.isnan(p) else p for g, p in pairs], float)
    return gold, said


def _measure(name: str, predictions: Sequence[Any], golds: Sequence[Any]) -> float:
    gold, said = labels(predictions, golds)
    return measures(gold, said)[name] if len(gold) else 0.0


def mcc_error_free(predictions: Sequence[Any], golds: Sequence[Any]) -> float:
    """Matthews correlation of the error-free labels (0 when a class is never said or never true)."""
    return _measure("mcc", predictions, golds)


def balanced_accuracy_error_free(predictions: Sequence[Any], golds: Sequence[Any]) -> float:
    """Mean of the recalls of "error-free" and "has errors"."""
    return _measure("balanced_accuracy", predictions, golds)


def f1_error_free(predictions: Sequence[Any], golds: Sequence[Any]) -> float:
    """F1 of the error-free class."""
    return _measure("f1", predictions, golds)

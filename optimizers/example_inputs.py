"""What a training example holds: the input fields of each kind, and the human score of MT examples.

Shared by the sources of training data (:mod:`tribunal.optimizers.training_data`), the trace
labels (:mod:`tribunal.optimizers.trace_labels`) and the MLflow slices built from them
(:mod:`tribunal.optimizers.mlflow_data`), so that none of them imports another for it.
"""

from __future__ import annotations

from typing import Any

from tribunal.core.wmt_weights import wmt_penalty
from tribunal.signatures.mqm.item_fields import MT_ITEM_FIELDS

MT_INPUTS = MT_ITEM_FIELDS
EQUIV_INPUTS = ("hypothesis_a", "hypothesis_b")


def human_mqm_score(errors: list[dict[str, Any]]) -> float:
    """``-sum`` of WMT weights (:func:`tribunal.core.wmt_weights.wmt_weight`) of ``{category, severity}`` errors."""
    return -wmt_penalty([(error["category"], error["severity"]) for error in errors])

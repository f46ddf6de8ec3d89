"""The error-free objectives of ``optimize`` (WMT26 subtask 3) on hand-worked predictions."""

from __future__ import annotations

import math

import dspy
import pytest

from tribunal.optimizers.error_free_objectives import gold_label, labels, predicted_label
from tribunal.optimizers.mt_metric import MQMMetric
from tribunal.optimizers.objectives import objective_names, parse_objective

MAJOR = {"start": 0, "end": 3, "severity": "major"}
NEUTRAL = {"start": 0, "end": 3, "severity": "neutral"}
# gold: error-free, error-free (a neutral span only), has errors, has errors, error-free (a score only, 0)
GOLDS = [dspy.Example(gold_score=0.0, gold_errors=[]), dspy.Example(gold_score=0.0, gold_errors=[NEUTRAL]),
         dspy.Example(gold_score=-5.0, gold_errors=[MAJOR]), dspy.Example(gold_score=-1.0, gold_errors=[MAJOR]),
         dspy.Example(gold_score=0.0, gold_errors=None)]
# the binary judge's answers (100 / 0 on ESA's scale): right, wrong, right, wrong, right
BINARY = [dspy.Prediction(errors=[], score=s, scale="esa") for s in (100.0, 0.0, 0.0, 100.0, 100.0)]


def value(name, predictions, golds=GOLDS):
    return parse_objective(name, "mt", MQMMetric()).value(predictions, golds)


def test_the_labels_follow_the_gold_rule_and_the_conversions():
    assert [gold_label(g) for g in GOLDS] == [1.0, 1.0, 0.0, 0.0, 1.0]
    assert math.isnan(gold_label(dspy.Example(gold_score=None, gold_errors=None)))
    assert [predicted_label(p) for p in BINARY] == [1.0, 0.0, 0.0, 1.0, 1.0]
    span_judge = [dspy.Prediction(errors=[{"span": "x", "severity": "minor"}], score=-1.0),
                  dspy.Prediction(errors=[{"span": "x", "severity": "neutral"}], score=0.0),
                  dspy.Prediction(errors=[], score=90.0, scale="esa"), dspy.Prediction(errors=[], score=80.0, scale="esa")]
    assert [predicted_label(p) for p in span_judge] == [0.0, 1.0, 1.0, 0.0]
    assert math.isnan(predicted_label(None)) and math.isnan(predicted_label(dspy.Prediction(score="n/a")))


def test_mcc_balanced_accuracy_and_f1_worked_by_hand():
    # tp 2 (0, 4), fn 1 (1), fp 1 (3), tn 1 (2)
    assert value("mcc-error-free", BINARY) == pytest.approx((2 * 1 - 1 * 1) / math.sqrt(3 * 3 * 2 * 2))
    assert value("balanced-accuracy-error-free", BINARY) == pytest.approx((2 / 3 + 1 / 2) / 2)
    assert value("f1-error-free", BINARY) == pytest.approx(2 / 3)
    right = [dspy.Prediction(errors=[], score=100.0 * g, scale="esa") for g in (1, 1, 0, 0, 1)]
    assert value("mcc-error-free", right) == value("f1-error-free", right) == 1.0
    assert value("mcc-error-free=1,item=1", right) == pytest.approx((1.0 + value("item", right)) / 2)  # (r+1)/2


def test_an_unscored_item_takes_the_wrong_label():
    holed = [None] + BINARY[1:]  # item 0 was right; unscored it counts as "has errors"
    gold, said = labels(holed, GOLDS)
    assert said.tolist() == [0.0, 0.0, 0.0, 1.0, 1.0] and gold.tolist() == [1.0, 1.0, 0.0, 0.0, 1.0]
    assert value("mcc-error-free", holed) < value("mcc-error-free", BINARY)
    assert value("f1-error-free", [None] * 5) == 0.0


def test_offered_for_mt_judges_only():
    assert {"mcc-error-free", "balanced-accuracy-error-free", "f1-error-free"} <= set(objective_names("mt"))
    assert "mcc-error-free" not in objective_names("equiv")

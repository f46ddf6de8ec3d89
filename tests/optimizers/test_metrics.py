"""Optimizer metrics: MQM agreement (score, span F1, severity), verdict accuracy, unscored accounting."""

from __future__ import annotations

import inspect

import dspy
import pytest

from tribunal.core.judgment import Judgment
from tribunal.optimizers.equiv_metric import EXPECTED_VERDICT, EquivalenceMetric
from tribunal.optimizers.mt_metric import MQMMetric

TRANSLATION = "Der Hund sitzt auf dem Tisch und bellt laut."


def gold(errors, score):
    return dspy.Example(source="The dog sits on the table and barks loudly.", translation=TRANSLATION,
                        gold_score=score, gold_errors=errors).with_inputs("source", "translation")


def span(text, severity, category="Accuracy/Mistranslation"):
    start = TRANSLATION.index(text)
    return {"start": start, "end": start + len(text), "severity": severity, "category": category,
            "is_source_error": False}


GOLD = gold([span("Tisch", "major"), span("laut", "minor")], -6.0)


def prediction(errors, score):
    return dspy.Prediction(errors=[{"span": s, "severity": v} for s, v in errors], score=score)


def test_perfect_annotation_scores_one():
    metric = MQMMetric()
    outcome = metric.outcome(GOLD, prediction([("Tisch", "major"), ("laut", "minor")], -6.0))
    assert outcome.score == pytest.approx(1.0)
    assert outcome.components == {"score": 1.0, "spans": 1.0, "severity": 1.0}


def test_components_penalise_what_differs():
    metric = MQMMetric()
    missed = metric.outcome(GOLD, prediction([("Tisch", "major")], -5.0))
    assert missed.components["score"] == pytest.approx(1 - 1 / 25)
    assert missed.components["spans"] == pytest.approx(2 * 1 * (1 / 2) / (1 + 1 / 2))  # micro MPP: P = 1, R = (1 + 0)/2
    assert "Missed human errors: 'laut' (minor)" in missed.feedback
    wrong_severity = metric.outcome(GOLD, prediction([("Tisch", "minor"), ("laut", "minor")], -2.0))
    assert wrong_severity.components["severity"] == pytest.approx(0.5)
    assert "'Tisch' is major, not minor" in wrong_severity.feedback
    invented = metric.outcome(GOLD, prediction([("Tisch", "major"), ("laut", "minor"), ("Katze", "major")], -11.0))
    assert invented.components["spans"] < 1.0  # a span that is not in the translation is a false positive
    assert "not exact substrings" in invented.feedback


def test_no_errors_on_both_sides_is_perfect_and_severity_not_applicable():
    outcome = MQMMetric().outcome(gold([], 0.0), prediction([], 0.0))
    assert outcome.score == 1.0 and "severity" not in outcome.components


def test_unparseable_prediction_is_zero_for_the_optimizer_but_counted_unscored():
    metric = MQMMetric()
    assert metric(GOLD, dspy.Prediction(errors=[], score=None)) == 0.0
    assert metric(GOLD, None) == 0.0
    assert metric(GOLD, prediction([("Tisch", "major")], -5.0)) > 0.5
    assert metric.calls == 3 and metric.unscored_count == 2
    assert set(metric.unscored_reasons) == {  # a prediction is read as the runner reads it: no judgment, unscored
        "malformed judgment: Prediction is not a judgment: score: Field required (1 problem)",
        "no prediction (the program failed)"}


@pytest.mark.parametrize("kind", list(EXPECTED_VERDICT))
def test_verdict_accuracy_against_perturbation_labels(kind):
    metric = EquivalenceMetric()
    example = dspy.Example(hypothesis_a="a", hypothesis_b="b", kind=kind).with_inputs("hypothesis_a", "hypothesis_b")
    right = "same" if kind in ("wording-only", "wording-chain", "alias-chain") else "different"
    wrong = {"same": "different", "different": "same"}[right]
    assert metric(example, dspy.Prediction(verdict=right)) == 1.0
    assert metric(example, dspy.Prediction(verdict=wrong)) == 0.0
    # the majority judge's typed judgment works the same way
    assert metric(example, dspy.Prediction(judgment=Judgment(same=right == "same"))) == 1.0
    assert metric.unscored_count == 0


def test_equivalence_unscored_and_feedback_for_gepa():
    metric = EquivalenceMetric()
    example = dspy.Example(hypothesis_a="a", hypothesis_b="b", kind="first-step-swapped")
    undecided = dspy.Prediction(judgment=Judgment(same=None, reason="no two scored votes agree"))
    assert metric(example, undecided) == 0.0
    assert metric.unscored_reasons == {"no two scored votes agree": 1}
    inspect.signature(metric.with_feedback).bind(None, None, None, None, None)  # GEPA's five-argument protocol
    result = metric.with_feedback(example, dspy.Prediction(verdict="same"), None, "judge", None)
    assert result.score == 0.0 and "label is 'different'" in result.feedback and "initiating event" in result.feedback
    with pytest.raises(ValueError, match="neither a known perturbation kind"):
        metric.judge(dspy.Example(hypothesis_a="a"), dspy.Prediction(verdict="same"))


def test_a_score_only_label_is_judged_on_its_score_and_gives_no_demo():
    """An MLflow trace a person scored without marking spans: its "no spans" is unknown, not "no errors"."""
    from tribunal.optimizers.labelled_demos import labeler_for

    fields = dict(source="The bridge opens.", translation="Die Brücke öffnet.", source_lang="English",
                  target_lang="German", gold_score=-5.0)
    scored_only = dspy.Example(**fields, gold_errors=None).with_inputs("source", "translation")
    marked = dspy.Example(**fields, gold_errors=[{"start": 4, "end": 10, "severity": "major",
                                                  "category": "Accuracy/Mistranslation", "is_source_error": False}])
    prediction = dspy.Prediction(score=-5.0, errors=[{"span": "Brücke", "severity": "major"}])
    outcome = MQMMetric().judge(scored_only, prediction)
    assert outcome.score == 1.0 and set(outcome.components) == {"score"}
    assert len(labeler_for("gemba-mqm").demos("annotate", [scored_only, marked.with_inputs("source")])) == 1

"""Which assessment of a trace is its human label, and the reason a trace has none."""

from __future__ import annotations

import pytest
from mlflow.entities import AssessmentSource, Expectation, Feedback

from tribunal.optimizers import trace_labels as tl

ITEM = {"source": "The bridge will reopen.", "translation": "Die Brücke öffnet wieder.",
        "source_lang": "English", "target_lang": "German"}
PERSON, JUDGE = AssessmentSource("HUMAN", "alice"), AssessmentSource("LLM_JUDGE", "openai/judge")


def expectation(name, value, at, source=PERSON, valid=True):
    made = Expectation(name=name, value=value, source=source, create_time_ms=at, last_update_time_ms=at)
    made.assessment_id, made.valid = f"a-{name}-{at}", valid
    return made


def feedback(name, value, at, source=PERSON, valid=True):
    made = Feedback(name=name, value=value, source=source, create_time_ms=at, last_update_time_ms=at)
    made.assessment_id, made.valid = f"f-{name}-{at}", valid
    return made


def test_the_latest_valid_human_score_wins_over_older_ones_and_judges():
    assessments = [expectation("human_mqm", -5.0, 1), feedback("human_mqm", -2, 3),
                   feedback("human_mqm", -9.0, 4, source=JUDGE),  # a judge is never a label
                   expectation("human_mqm", -7.0, 5, valid=False)]  # overridden in the UI
    label = tl.mt_label(ITEM, None, assessments)
    assert label.kind == "mt" and label.labels == {"gold_score": -2.0, "gold_errors": None}
    assert label.inputs == ITEM and label.assessment_ids == ["f-human_mqm-3"]


def test_a_person_correcting_the_judges_score_is_a_label():
    corrected = feedback("GEMBA-MQM_mqm", -1.0, 9)
    label = tl.mt_label(ITEM, None, [feedback("GEMBA-MQM_mqm", -5.0, 1, source=JUDGE, valid=False), corrected])
    assert label.labels["gold_score"] == -1.0


@pytest.mark.parametrize("value", ["about -3", 2.0, True, float("nan"), None, {"score": -1}])
def test_a_latest_label_that_is_no_mqm_score_skips_the_trace_never_falls_back(value):
    with pytest.raises(tl.LabelProblem) as problem:
        tl.mt_label(ITEM, None, [expectation("human_mqm", -5.0, 1), feedback("human_mqm", value, 2)])
    assert problem.value.reason == tl.NOT_A_SCORE


def test_a_numeric_string_typed_in_the_ui_is_a_score():
    assert tl.mt_label(ITEM, None, [feedback("human_mqm", " -6 ", 1)]).labels["gold_score"] == -6.0


def test_error_spans_by_text_or_offsets_become_gold_errors():
    spans = [{"category": "Accuracy/Mistranslation", "severity": "Major", "span": "öffnet"},
             {"category": "Fluency/Grammar", "severity": "minor", "start": 0, "end": 3},
             {"category": "Accuracy/Source error", "severity": "minor", "span": "bridge", "is_source_error": True}]
    label = tl.mt_label(ITEM, None, [expectation("human_mqm", -6.0, 1), expectation("human_errors", spans, 2)])
    assert label.labels["gold_errors"] == [
        {"start": 11, "end": 17, "severity": "major", "category": "Accuracy/Mistranslation", "is_source_error": False},
        {"start": 0, "end": 3, "severity": "minor", "category": "Fluency/Grammar", "is_source_error": False},
        {"start": 4, "end": 10, "severity": "minor", "category": "Accuracy/Source error", "is_source_error": True}]
    only_spans = tl.mt_label(ITEM, None, [expectation("human_errors", spans[:2], 2)])
    assert only_spans.labels["gold_score"] == -6.0  # WMT weights: major 5 + minor 1


@pytest.mark.parametrize("spans", [{"span": "x"}, [{"severity": "minor", "span": "Die"}],
                                   [{"category": "Fluency", "severity": "terrible", "span": "Die"}],
                                   [{"category": "Fluency", "severity": "minor", "span": "not there"}],
                                   [{"category": "Fluency", "severity": "minor", "start": 5, "end": 500}]])
def test_malformed_error_spans_skip_the_trace(spans):
    with pytest.raises(tl.LabelProblem) as problem:
        tl.mt_label(ITEM, None, [expectation("human_mqm", -1.0, 1), expectation("human_errors", spans, 2)])
    assert problem.value.reason == tl.BAD_ERRORS


def test_missing_labels_and_inputs_are_named():
    cases = [(ITEM, [feedback("human_mqm", -1.0, 1, source=JUDGE)], tl.NO_LABEL),
             ({"source": "x"}, [expectation("human_mqm", -1.0, 1)], tl.NO_ITEM),
             ({"source": "x", "translation": "y"}, [expectation("human_mqm", -1.0, 1)], tl.NO_LANGUAGES),
             ({"question": "x"}, [expectation("human_mqm", -1.0, 1)], tl.NOT_AN_ITEM),
             ({"question": "x"}, [], tl.NO_LABEL)]
    for inputs, assessments, reason in cases:
        with pytest.raises(tl.LabelProblem) as problem:
            tl.trace_label(inputs, None, assessments)
        assert problem.value.reason == reason, inputs


def test_a_genai_evaluate_row_gives_its_translation_as_outputs():
    inputs = {k: v for k, v in ITEM.items() if k != "translation"}
    label = tl.trace_label(inputs, "Die Brücke.", [expectation("human_mqm", 0, 1)])
    assert label.inputs["translation"] == "Die Brücke." and label.labels["gold_score"] == 0.0


def test_equivalence_pairs_take_the_latest_human_verdict():
    pair = {"hypothesis_a": "A causes B.", "hypothesis_b": "B is caused by A.", "kind": "wording-only"}
    label = tl.trace_label(pair, None, [expectation("expected_verdict", "same", 1),
                                        feedback("llm-full_verdict", "Different", 2)])
    assert label.kind == "equiv" and label.labels == {"verdict": "different", "kind": "wording-only"}
    with pytest.raises(tl.LabelProblem) as problem:
        tl.trace_label(pair, None, [expectation("expected_verdict", "maybe", 1)])
    assert problem.value.reason == tl.NOT_A_VERDICT

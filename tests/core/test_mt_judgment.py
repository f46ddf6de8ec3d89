"""MTJudgment: what an MT program's prediction is validated into, in the one place the runner takes it."""

from __future__ import annotations

import dspy
import pytest

from tribunal.core.mt_judgment import MTJudgment, MalformedJudgment, judged, judgment_of, judgments_of
from tribunal.signatures.mqm.errors import DimensionError, GembaError


def _mmad_like() -> dspy.Prediction:
    error = DimensionError(span="bank", subcategory="mistranslation", severity="major", dimension="accuracy")
    steps = [{"stage": "stage1", "role": "accuracy", "rationale": "r", "errors": [error.model_dump()]},
             {"stage": "stage2", "dimension": "accuracy", "rounds": 1, "consensus": True,
              "decided_by": "opposer conceded", "turns": [{"role": "opposer", "round": 1, "text": "t", "errors": None}]}]
    return dspy.Prediction(errors=[error], score=-5, transcript=steps,
                           debates={"accuracy": {"rounds": 1, "consensus": True, "decided_by": "opposer conceded"}},
                           degraded=[])


def test_a_prediction_is_validated_into_a_judgment_whose_parts_dump_as_the_program_gave_them():
    prediction = _mmad_like()
    judgment = judgment_of(prediction)
    assert judgment.score == -5.0 and judgment.errors[0].model_dump() == prediction.errors[0].model_dump()
    assert [s.model_dump() for s in judgment.transcript] == prediction.transcript
    assert judgment.debates == prediction.debates  # a debate is steps: its summary is read off them


def test_gemba_errors_keep_their_category_and_no_dimension():
    error = GembaError(span="x", category="fluency", subcategory="grammar", severity="critical")
    judgment = judgment_of(dspy.Prediction(errors=[error], score=-10.0, transcript=[], debates={}))
    assert judgment.errors[0].model_dump() == error.model_dump() and judgment.errors[0].dimension is None


@pytest.mark.parametrize("prediction, problem", [
    (dspy.Prediction(errors=[], transcript=[]), "score: Field required"),
    (dspy.Prediction(score="high", errors=[]), "score: Input should be a valid number"),
    (dspy.Prediction(score=1.0, errors=[{"span": "x", "severity": "major", "colour": "red"}]), "errors.0.colour"),
    (dspy.Prediction(score=1.0, errors=[], transcript=[{"role": "judge"}]), "transcript.0.stage"),
    (None, "score: Field required"),
])
def test_a_malformed_prediction_raises_one_line_naming_the_problem(prediction, problem):
    with pytest.raises(MalformedJudgment, match=problem) as caught:
        judgment_of(prediction)
    assert "\n" not in str(caught.value)


def test_a_joint_judge_gives_one_judgment_per_candidate():
    one = dspy.Prediction(errors=[], score=0.0, transcript=[{"stage": "joint", "role": "joint"}], debates={})
    assert [j.score for j in judgments_of(dspy.Prediction(judgments=[one, one]), 2)] == [0.0, 0.0]
    with pytest.raises(MalformedJudgment, match="1 judgments for 2 candidates"):
        judgments_of(dspy.Prediction(judgments=[one]), 2)
    with pytest.raises(MalformedJudgment, match="no list of judgments"):
        judgments_of(dspy.Prediction(errors=[]), 2)


def test_a_judgment_passes_through_and_has_no_debates_field():
    judgment = MTJudgment(score=1.0)
    assert judgment_of(judgment) is judgment and "debates" not in MTJudgment.model_fields


def test_judged_validates_a_programs_result_where_it_returns_it():
    error = GembaError(span="x", category="fluency", subcategory="grammar", severity="minor")
    prediction = judged(-1.0, [error], [{"stage": "gemba", "role": "gemba", "errors": [error.model_dump()]}])
    assert isinstance(prediction, dspy.Prediction) and set(prediction.keys()) == {"score", "errors", "transcript"}
    assert judgment_of(prediction).errors[0].model_dump() == error.model_dump()
    with pytest.raises(MalformedJudgment, match="program result is not a judgment: score"):
        judged("high", [], [])
    with pytest.raises(MalformedJudgment, match="transcript.0.stage"):
        judged(0.0, [], [{"role": "gemba"}])


def _malformed_program(**inputs: object) -> dspy.Prediction:
    return judged("high", [], [])  # raises where it returns, as a program's own bug would


@pytest.mark.parametrize("result", [lambda: dspy.Prediction(score="high", errors=[]), _malformed_program])
def test_a_malformed_result_is_unscored_with_its_reason_through_the_scorer(monkeypatch, result):
    from tribunal.scorers import MQMJudge

    monkeypatch.setattr(MQMJudge, "_predict", lambda self, *args: result())
    feedback = MQMJudge(program="gemba-mqm", lm="openai/unused")(
        inputs={"source": "Hallo", "source_lang": "German", "target_lang": "English"}, outputs="Hello")
    assert feedback.value is None and feedback.error.error_message.startswith("unscored: malformed judgment:")


@pytest.mark.parametrize("result", [lambda: dspy.Prediction(score="high", errors=[]), _malformed_program])
def test_a_malformed_result_is_unscored_with_its_reason_through_the_optimizer_metric(result):
    from tribunal.optimizers.dev_eval import evaluate_program
    from tribunal.optimizers.mt_metric import MQMMetric

    example = dspy.Example(source="Hallo", translation="Hello", gold_score=0.0, gold_errors=[]).with_inputs(
        "source", "translation")
    dev = evaluate_program(lambda **inputs: result(), [example], MQMMetric(), threads=1)
    assert dev.scored == 0 and dev.unscored == 1 and dev.outcomes[0].score is None
    assert dev.outcomes[0].reason.startswith("malformed judgment:") and "score" in dev.outcomes[0].reason

"""GEMBA-ESA on a scripted offline LM: both stages, 2 LM calls per item, the ablation and the unscored paths."""

from __future__ import annotations

import dspy
import pytest

from tests.support.mqm_fakes import ScriptedEngine
from tribunal.core.mt_item import JudgeItem
from tribunal.eval.mt.judging import judge_item
from tribunal.programs.mqm.esa import ESAConfig, GembaESAJudge
from tribunal.programs.mqm.roles import RoleLMs, UnusableAnswer

SOURCE, TRANSLATION = "The cat sat on the mat.", "Die Katze sass auf der Matte ."
MAJOR = {"span": "sass", "category": "accuracy", "subcategory": "mistranslation", "severity": "major",
         "is_source_error": False}
MINOR = {"span": " .", "category": "fluency", "subcategory": "punctuation", "severity": "minor",
         "is_source_error": False}


def script(spans: list | str, score):
    """The span step answers ``spans``; the score step ``score`` (a value, or raw answer text)."""
    def respond(name, inputs):
        if name == "ESASpans":
            return spans if isinstance(spans, str) else {"errors": spans}
        if name in ("ESAScore", "DirectScore"):
            return score if isinstance(score, str) and score.startswith("[[") else {"score": score}
        raise LookupError(name)

    return respond


def judge(responder, config: ESAConfig | None = None, **roles):
    engine = ScriptedEngine(responder)
    lm = dspy.LM("scripted/judge", engine=engine, cache=False, num_retries=0)
    program = GembaESAJudge(config, RoleLMs(lm, roles))
    out = program(source=SOURCE, translation=TRANSLATION, source_lang="English", target_lang="German")
    return out, engine


def test_two_calls_spans_then_a_score_that_sees_them():
    out, engine = judge(script([MAJOR, MINOR], 62))
    assert engine.names() == ["ESASpans", "ESAScore"]
    score_inputs = engine.calls[1][1]
    assert [e["span"] for e in score_inputs["errors"]] == ["sass", " ."]  # the scorer sees the spans found
    assert score_inputs["source"] == SOURCE and score_inputs["translation"] == TRANSLATION
    assert [e.span for e in out.errors] == ["sass", " ."] and [e.severity for e in out.errors] == ["major", "minor"]
    assert out.score == 62 and out.scale == "esa"
    assert [t.stage for t in out.transcript] == ["spans", "score"]


def test_a_clean_translation_still_costs_two_calls():
    out, engine = judge(script([], 100))
    assert engine.names() == ["ESASpans", "ESAScore"] and engine.calls[1][1]["errors"] == []
    assert out.errors == [] and out.score == 100


def test_ablation_without_spans_scores_directly_in_one_call():
    out, engine = judge(script([MAJOR], 71), ESAConfig(ablate=("spans",)))
    assert engine.names() == ["DirectScore"] and "errors" not in engine.calls[0][1]
    assert out.errors == [] and out.score == 71
    assert [path for path, _ in GembaESAJudge(ESAConfig(ablate=("spans",))).named_predictors()] == ["rate"]


def test_each_stage_runs_on_its_roles_lm():
    spans_engine, score_engine = ScriptedEngine(script([MINOR], 90)), ScriptedEngine(script([MINOR], 90))
    roles = {"evaluator": dspy.LM("scripted/spans", engine=spans_engine, cache=False),
             "scorer": dspy.LM("scripted/score", engine=score_engine, cache=False)}
    default = ScriptedEngine(script([], 0))
    program = GembaESAJudge(lms=RoleLMs(dspy.LM("scripted/default", engine=default, cache=False), roles))
    out = program(source=SOURCE, translation=TRANSLATION)
    assert spans_engine.names() == ["ESASpans"] and score_engine.names() == ["ESAScore"] and default.calls == []
    assert out.score == 90


def test_answers_written_like_a_real_model_still_parse():
    preamble = ("Here is my annotation of the translation.\n\n[[ ## errors ## ]]\n"
                '[{"span": "sass", "category": "accuracy", "subcategory": "mistranslation", "severity": "major"}]\n')
    score = "[[ ## score ## ]]\n85\n"  # no [[ ## completed ## ]] marker, the number as text
    out, engine = judge(script(preamble, score))
    assert engine.names() == ["ESASpans", "ESAScore"]
    assert out.errors[0].span == "sass" and out.errors[0].is_source_error is False and out.score == 85.0


def test_capitalised_severity_and_labelled_score_parse_with_the_tolerant_adapter():
    spans = ('[[ ## errors ## ]]\n[{"span": "sass", "category": "Accuracy", "subcategory": "mistranslation", '
             '"severity": "Major"}]\n\n[[ ## completed ## ]]')
    out, engine = judge(script(spans, "[[ ## score ## ]]\nScore: 85\n\nI hope this helps."))
    assert engine.names() == ["ESASpans", "ESAScore"]
    assert out.errors[0].severity == "major" and out.score == 85.0


@pytest.mark.parametrize("score", [130, -5, "[[ ## score ## ]]\nNaN\n\n[[ ## completed ## ]]"])
def test_a_score_outside_0_to_100_is_unusable_never_clipped(score):
    with pytest.raises(UnusableAnswer, match="score: Input should be (less|greater) than or equal to (100|0)"):
        judge(script([], score))


def test_an_unreadable_span_answer_stops_before_the_score_step():
    engine = ScriptedEngine(script("I think the translation is mostly fine?", 90))
    lm = dspy.LM("scripted/judge", engine=engine, cache=False, num_retries=0)
    with pytest.raises(UnusableAnswer):
        GembaESAJudge(lms=RoleLMs(lm))(source=SOURCE, translation=TRANSLATION)
    assert engine.names() == ["ESASpans"] * 3  # asked, then re-asked twice; never scored


@pytest.mark.parametrize("responder, reason", [
    (script([MAJOR], 250), "invalid answer: score: Input should be less than or equal to 100 (got 250.0)"),
    (script("no idea", 50), "refusal: it gave none of the fields asked for"),
])
def test_the_runner_records_unusable_answers_as_unscored_items(responder, reason):
    lm = dspy.LM("scripted/judge", engine=ScriptedEngine(responder), cache=False, num_retries=0)
    item = JudgeItem(key="k", source=SOURCE, translation=TRANSLATION)
    result = judge_item(GembaESAJudge(lms=RoleLMs(lm)), item, {"source_lang": "English", "target_lang": "German"})
    assert result.status == "unscored" and result.reason.startswith(reason) and result.score is None

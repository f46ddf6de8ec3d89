"""MQM-APE on a scripted offline LM: evaluator, post-editor per error, verifier per error (1 + 2 per
error found), the kept errors scored as MQM, the ablation without the verifier and the unscored paths."""

from __future__ import annotations

import dspy
import pytest
from tribunal.programs.answers import RefusedAnswer, UnusableAnswer

from tests.support.mqm_fakes import ScriptedEngine
from tribunal.core.mt_item import JudgeItem
from tribunal.eval.mt.judging import judge_item
from tribunal.programs.mqm.ape import APEConfig, MQMAPEJudge
from tribunal.programs.mqm.roles import RoleLMs
from tribunal.core.scheduling import CallSlots, Scheduler, scheduled

SOURCE, TRANSLATION = "The black cat sat on the mat.", "Die Katze sass auf der Matte ."
CRITICAL = {"span": "Matte", "category": "accuracy", "subcategory": "mistranslation", "severity": "critical"}
MAJOR = {"span": "sass", "category": "fluency", "subcategory": "grammar", "severity": "major"}
MINOR = {"span": " .", "category": "fluency", "subcategory": "punctuation", "severity": "minor"}
OMISSION = {"span": "black", "category": "accuracy", "subcategory": "omission", "severity": "major",
            "is_source_error": True}


def script(errors: list | str, keep: set[str] = frozenset(), unchanged: set[str] = frozenset(), verdicts=None):
    """The evaluator finds ``errors``; the verifier prefers the post-edit of the spans in ``keep``.

    The post-editor replaces the span with ``[fixed]``, except for spans in ``unchanged``; ``verdicts``
    maps a span to a raw verifier answer (text written the way a model might write it).
    """
    def respond(name, inputs):
        if name == "GembaMQM":
            return errors if isinstance(errors, str) else {"errors": errors}
        if name == "PostEdit":
            span = inputs["error"]["span"]
            if span in unchanged:
                return {"post_edit": inputs["translation"]}
            # the tag tells the verifier which error's post-edit it compares
            return {"post_edit": inputs["translation"].replace(span, "[fixed]") + f" <{span}>"}
        if name == "PairwiseQuality":
            span = inputs["translation_b"].rsplit("<", 1)[1].rstrip(">")
            if verdicts and span in verdicts:
                return verdicts[span]
            return {"better": "B" if span in keep else "A"}
        raise LookupError(name)

    return respond


def judge(responder, config: APEConfig | None = None, roles=None):
    engine = ScriptedEngine(responder)
    lm = dspy.LM("scripted/judge", engine=engine, cache=False, num_retries=0)
    program = MQMAPEJudge(config, RoleLMs(lm, roles))
    out = program(source=SOURCE, translation=TRANSLATION, source_lang="English", target_lang="German")
    return out, engine


@pytest.mark.parametrize("found", [[], [MAJOR], [MAJOR, MINOR, OMISSION]])
def test_calls_are_one_plus_two_per_error_found(found):
    out, engine = judge(script(found, keep={e["span"] for e in found}))
    assert len(engine.calls) == 1 + 2 * len(found)
    assert engine.names() == ["GembaMQM"] + ["PostEdit", "PairwiseQuality"] * len(found)
    assert [e.span for e in out.errors] == [e["span"] for e in found]


def test_only_errors_whose_post_edit_is_better_are_kept_and_scored():
    out, engine = judge(script([MAJOR, MINOR, OMISSION], keep={"sass", "black"}))
    assert [e.span for e in out.errors] == ["sass", "black"]
    assert out.score == -10  # two kept majors; the minor's post-edit was not better
    post_edits = [inputs for name, inputs in engine.calls if name == "PostEdit"]
    assert [p["error"]["span"] for p in post_edits] == ["sass", " .", "black"]  # one error at a time
    checks = [inputs for name, inputs in engine.calls if name == "PairwiseQuality"]
    assert all(c["translation_a"] == TRANSLATION for c in checks)  # A: the translation, B: its post-edit
    assert checks[0]["translation_b"] == "Die Katze [fixed] auf der Matte . <sass>"
    verified = [t for t in out.transcript if t.stage == "verify"]
    assert [(t.better, t.kept) for t in verified] == [("B", True), ("A", False), ("B", True)]


def test_ape_scoring_weighs_critical_25_counts_every_error_and_caps_at_25():
    out, _ = judge(script([CRITICAL], keep={"Matte"}))
    assert out.score == -25
    majors = [dict(MAJOR, span=word) for word in ("Die", "Katze", "sass", "auf", "der", "Matte")]
    out, engine = judge(script(majors, keep={"Die", "Katze", "sass", "auf", "der", "Matte"}))
    assert len(engine.calls) == 13 and out.score == -25  # six majors (30) capped at 25
    out, _ = judge(script([MINOR] * 6, keep={" ."}))
    assert out.score == -6  # unlike GEMBA-MQM, errors past the fifth still count


def test_ablation_without_the_verifier_keeps_errors_the_post_editor_changed():
    out, engine = judge(script([MAJOR, MINOR], unchanged={" ."}), APEConfig(ablate=("verifier",)))
    assert engine.names() == ["GembaMQM", "PostEdit", "PostEdit"]  # 1 + 1 per error
    assert [e.span for e in out.errors] == ["sass"] and out.score == -5
    assert [path for path, _ in MQMAPEJudge(APEConfig(ablate=("verifier",))).named_predictors()] == \
        ["evaluate", "post_edit"]


def test_each_role_runs_on_its_own_lm():
    responder = script([MAJOR, MINOR], keep={"sass"})
    engines = {role: ScriptedEngine(responder) for role in ("evaluator", "post_editor", "verifier")}
    roles = {role: dspy.LM(f"scripted/{role}", engine=engine, cache=False) for role, engine in engines.items()}
    out, default = judge(responder, roles=roles)
    assert default.calls == []
    assert engines["evaluator"].names() == ["GembaMQM"]
    assert engines["post_editor"].names() == ["PostEdit"] * 2 and engines["verifier"].names() == ["PairwiseQuality"] * 2
    assert out.score == -5


def test_per_error_checks_fan_out_under_a_scheduler_and_keep_the_evaluator_order():
    from concurrent.futures import ThreadPoolExecutor

    found = [MAJOR, MINOR, OMISSION]
    engine = ScriptedEngine(script(found, keep={"sass", " .", "black"}))
    program = MQMAPEJudge(lms=RoleLMs(dspy.LM("scripted/judge", engine=engine, cache=False)))
    with ThreadPoolExecutor(4) as pool, scheduled(Scheduler(CallSlots(4), pool)):
        out = program(source=SOURCE, translation=TRANSLATION)
    assert len(engine.calls) == 7 and [e.span for e in out.errors] == ["sass", " .", "black"]


def test_verifier_answers_written_like_a_real_model_still_parse():
    verdicts = {"sass": "The second translation fixes the error.\n\n[[ ## better ## ]]\nB\n",
                " .": "[[ ## better ## ]]\nA\n\n[[ ## completed ## ]]"}
    out, engine = judge(script([MAJOR, MINOR], verdicts=verdicts))
    assert len(engine.calls) == 5 and [e.span for e in out.errors] == ["sass"]


def test_capitalised_severity_and_a_decorated_verdict_parse_with_the_tolerant_adapter():
    errors = ('[[ ## errors ## ]]\n[{"span": "sass", "category": "Fluency", "subcategory": "grammar", '
              '"severity": "Major"}]')
    out, engine = judge(script(errors, verdicts={"sass": "[[ ## better ## ]]\n**B**\n\nB is clearly better."}))
    assert len(engine.calls) == 3 and out.errors[0].severity == "major" and out.score == -5


def test_an_unreadable_verdict_keeps_the_error_unverified_and_marks_the_item_degraded():
    """The method without its filter for that error: kept as the evaluator annotated it, never silently;
    under strict the item is unscored, as before fallbacks."""
    responder = script([MAJOR], verdicts={"sass": "[[ ## better ## ]]\nboth are fine\n\n[[ ## completed ## ]]"})
    out, _ = judge(responder)
    [fallback] = out.degraded
    assert fallback.role == "verifier" and "asked 3 times" in fallback.reason  # 'both are fine' is no A/B
    assert [e.span for e in out.errors] == [MAJOR["span"]] and out.score == -5
    lm = dspy.LM("scripted/judge", engine=ScriptedEngine(responder), cache=False, num_retries=0)
    item = JudgeItem(key="k", source=SOURCE, translation=TRANSLATION)
    program = MQMAPEJudge(lms=RoleLMs(lm))
    program.strict = True
    result = judge_item(program, item, {"source_lang": "English", "target_lang": "German"})
    assert result.status == "unscored" and result.reason.startswith("invalid answer: better:") and result.score is None
    assert "\n" not in result.reason


def test_an_unreadable_evaluation_stops_before_any_post_edit():
    engine = ScriptedEngine(script("The translation has a couple of issues."))
    lm = dspy.LM("scripted/judge", engine=engine, cache=False, num_retries=0)
    with pytest.raises(RefusedAnswer):  # prose with none of the fields: a refusal, asked three times
        MQMAPEJudge(lms=RoleLMs(lm))(source=SOURCE, translation=TRANSLATION)
    assert engine.names() == ["GembaMQM"] * 3

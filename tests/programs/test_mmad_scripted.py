"""M-MAD (lean preset) and the baselines on a scripted offline LM: errors, scores and the exact LM calls per stage.

The paper preset has its own file, ``test_mmad_paper.py``.
"""

from __future__ import annotations

import dspy
import pytest

from tests.support.mqm_fakes import ScriptedEngine
from tribunal.core.mt_judgment import MTJudgment
from tribunal.programs.mqm.gemba import GembaMQMJudge
from tribunal.programs.mqm.eaprompt import EAPromptJudge
from tribunal.programs.mqm.mmad import MMAD, MMADConfig
from tribunal.programs.mqm.roles import RoleLMs, UnusableAnswer

SOURCE, TRANSLATION = "The cat sat on the mat.", "Die Katze sass auf der Matte ."
ACC = {"span": "sass", "subcategory": "mistranslation", "severity": "major", "is_source_error": False}
FLU = {"span": " .", "subcategory": "punctuation", "severity": "minor", "is_source_error": False}
ASSESSORS = ("AccuracyAssessment", "FluencyAssessment", "StyleAssessment", "TerminologyAssessment")


def lean(**switches) -> MMADConfig:
    return MMADConfig(preset="lean", **switches)


def script(found: dict[str, list], opposer_agrees=(True,), defender_agrees=(False,), **fixed):
    """Stage-1 findings per assessor; the debaters' ``agrees`` per turn; other answers fixed."""
    turns = {"defend": list(defender_agrees), "oppose": list(opposer_agrees)}

    def respond(name, inputs):
        if name in ASSESSORS:
            return {"rationale": f"{name} looked", "errors": found.get(name, [])}
        if name == "DebateTurn":
            agrees = turns[inputs["stance"]].pop(0) if turns[inputs["stance"]] else False
            position = inputs["assessment"] if inputs["stance"] == "defend" or agrees else \
                [dict(e, severity="minor") for e in inputs["assessment"]]
            return {"argument": inputs["stance"], "position": position, "agrees": agrees}
        if name == "FinalJudgment":
            return {"errors": inputs["verdicts"]}
        return fixed[name](inputs) if callable(fixed[name]) else fixed[name]

    return respond


def run(config: MMADConfig | None, responder, program=None):
    engine = ScriptedEngine(responder)
    lm = dspy.LM("scripted/judge", engine=engine, cache=False)
    program = program or MMAD(config, RoleLMs(lm))
    if not isinstance(program, MMAD):
        program.lms = RoleLMs(lm)
    out = program(source=SOURCE, translation=TRANSLATION, source_lang="English", target_lang="German")
    return out, engine.names()


def test_clean_segment_costs_four_calls_and_skips_the_judge():
    out, calls = run(lean(), script({}))
    assert calls == list(ASSESSORS)
    assert out.score == 0 and out.errors == []


def test_consensus_in_round_one_costs_one_debate_call_per_debated_dimension():
    out, calls = run(lean(), script({"AccuracyAssessment": [ACC]}, opposer_agrees=(True,)))
    assert calls == [*ASSESSORS, "DebateTurn", "FinalJudgment"]
    assert MTJudgment.of(out).debates["accuracy"] == {"rounds": 1, "consensus": True, "decided_by": "opposer conceded"}
    assert [e.span for e in out.errors] == ["sass"] and out.score == -5


def test_defender_concession_in_round_two_takes_the_opposers_position():
    out, calls = run(lean(), script({"AccuracyAssessment": [ACC]}, opposer_agrees=(False,),
                                          defender_agrees=(True,)))
    assert calls == [*ASSESSORS, "DebateTurn", "DebateTurn", "FinalJudgment"]
    assert out.errors[0].severity == "minor" and out.score == -1
    assert MTJudgment.of(out).debates["accuracy"]["decided_by"] == "defender conceded"


def test_no_consensus_runs_all_rounds_and_the_stage1_side_stands():
    out, calls = run(lean(rounds=2), script({"AccuracyAssessment": [ACC]}, opposer_agrees=(False, False),
                                                  defender_agrees=(False,)))
    assert calls.count("DebateTurn") == 3  # A2 r1 (A1's opening is the stage-1 rationale), A1 r2, A2 r2
    assert MTJudgment.of(out).debates["accuracy"]["consensus"] is False and out.score == -5


def test_debater_opening_and_separate_consensus_check_spend_the_calls_the_switches_name():
    config = lean(opening="debater", consensus_check="separate")
    checked = []
    responder = script({"AccuracyAssessment": [ACC]}, opposer_agrees=(False,),
                       ConsensusCheck=lambda inputs: checked.append(inputs) or {"consensus": True})
    out, calls = run(config, responder)
    assert calls == [*ASSESSORS, "DebateTurn", "DebateTurn", "ConsensusCheck", "FinalJudgment"]
    assert MTJudgment.of(out).debates["accuracy"]["decided_by"] == "consensus check"
    assert checked[0]["first_annotations"][0]["severity"] == "major"  # the defender's position...
    assert checked[0]["second_annotations"][0]["severity"] == "minor"  # ... against the opposer's
    assert out.score == -5  # on consensus the defender's annotations stand


def test_minor_punctuation_weighs_a_tenth_and_two_dimensions_debate_separately():
    out, calls = run(lean(), script({"AccuracyAssessment": [ACC], "FluencyAssessment": [FLU]},
                                          opposer_agrees=(True, True)))
    assert calls.count("DebateTurn") == 2 and calls[-1] == "FinalJudgment"
    assert out.score == pytest.approx(-5.1)


def test_deliberation_runs_fixed_rounds_then_the_debate_judge_decides():
    verdict = {"errors": [ACC | {"dimension": "accuracy", "severity": "minor"}]}
    out, calls = run(lean(strategy="deliberation", rounds=2),
                     script({"AccuracyAssessment": [ACC]}, opposer_agrees=(True, True), DebateVerdict=verdict))
    assert calls == [*ASSESSORS, "DebateTurn", "DebateTurn", "DebateTurn", "DebateVerdict", "FinalJudgment"]
    assert out.score == -1


@pytest.mark.parametrize("strategy, debaters", [("interactive-review", 3), ("consultancy-review", 1)])
def test_review_strategies_stop_when_the_reviewer_decides(strategy, debaters):
    reviews = [{"questions": "is it major?", "decided": False, "errors": []},
               {"questions": "", "decided": True, "errors": [ACC | {"dimension": "accuracy"}]}]
    out, calls = run(lean(strategy=strategy), script({"AccuracyAssessment": [ACC]}, opposer_agrees=(False, False),
                                                          ReviewTurn=lambda _: reviews.pop(0)))
    assert calls.count("ReviewTurn") == 2 and calls.count("DebateTurn") == debaters
    assert MTJudgment.of(out).debates["accuracy"]["rounds"] == 2 and out.score == -5


def test_ablation_without_stage1_uses_the_coupled_template():
    coupled = {"rationale": "", "errors": [ACC | {"dimension": "accuracy"}]}
    out, calls = run(lean(ablate=("stage1",)), script({}, CoupledAssessment=coupled))
    assert calls == ["CoupledAssessment", "DebateTurn", "FinalJudgment"] and out.score == -5


def test_ablation_without_stage2_sends_stage1_verdicts_to_the_judge():
    out, calls = run(lean(ablate=("stage2",)), script({"AccuracyAssessment": [ACC]}))
    assert calls == [*ASSESSORS, "FinalJudgment"] and MTJudgment.of(out).debates == {}


def test_ablation_without_stage3_concatenates_the_debated_verdicts():
    out, calls = run(lean(ablate=("stage3",)), script({"AccuracyAssessment": [ACC], "FluencyAssessment": [FLU]},
                                                           opposer_agrees=(True, True)))
    assert "FinalJudgment" not in calls and out.score == pytest.approx(-5.1)


def test_judge_policy_always_calls_the_judge_on_a_clean_segment():
    _, calls = run(lean(judge_policy="always"), script({}))
    assert calls == [*ASSESSORS, "FinalJudgment"]


def test_gemba_mqm_uses_its_own_weights_first_five_errors_and_cap():
    errors = [{"span": "Katze", "category": "accuracy", "severity": "critical"}] + \
             [{"span": "sass", "category": "fluency", "severity": "minor"}] * 6
    out, calls = run(None, lambda name, _: {"errors": errors}, GembaMQMJudge())
    assert calls == ["GembaMQM"] and out.score == -25
    out, _ = run(None, lambda name, _: {"errors": errors[1:]}, GembaMQMJudge())
    assert out.score == -5  # only the first 5 minor errors count


def test_eaprompt_scores_counts_and_rejects_negative_counts():
    out, calls = run(None, lambda name, _: {"analysis": "two errors", "major_errors": 1, "minor_errors": 2},
                     EAPromptJudge())
    assert calls == ["ErrorAnalysis"] and out.score == -7
    with pytest.raises(UnusableAnswer, match="major_errors: Input should be greater than or equal to 0"):
        run(None, lambda name, _: {"analysis": "?", "major_errors": -1, "minor_errors": 0}, EAPromptJudge())

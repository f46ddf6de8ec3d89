"""The paper preset (M-MAD as published) on a scripted offline LM, reading the prompts it really sends.

Each test pins one behaviour of the published code: which dimensions are debated, the downgraded
opening, the minor-leaning guidance in every debate prompt, the separate yes/no consensus check, the
final judge's merge rule, and the shared stage-1 guideline.
"""

from __future__ import annotations

import dspy
import pytest

from tests.support.mqm_fakes import identify, parse_fields
from tests.support.scripted_lm import ScriptedEngine
from tribunal.core.mt_judgment import MTJudgment
from tribunal.programs.mqm.minor_leaning import REBUTTAL
from tribunal.programs.mqm.mmad import MMAD, MMADConfig
from tribunal.programs.mqm.roles import RoleLMs
from tribunal.signatures.mqm.guideline import SEVERITY_GUIDANCE

SOURCE, TRANSLATION = "The cat sat on the mat.", "Die Katze sass auf der Matte ."
ACC = {"span": "sass", "subcategory": "mistranslation", "severity": "major", "is_source_error": False}
FLU = {"span": " .", "subcategory": "punctuation", "severity": "minor", "is_source_error": False}
NT = {"span": TRANSLATION, "subcategory": "non-translation", "severity": "major", "is_source_error": False}
GUIDED = ("GuidedAccuracyAssessment", "GuidedFluencyAssessment", "GuidedStyleAssessment",
          "GuidedTerminologyAssessment")
DIMENSION = {"Accuracy": "accuracy", "Fluency": "fluency", "Style": "style", "Terminology": "terminology"}


def minor(errors: list[dict]) -> list[dict]:
    return [dict(e, severity="minor") for e in errors]


class Recorder:
    """Answers each request by signature name and keeps it: ``(name, system text, inputs)``."""

    def __init__(self, found: dict[str, list], agree_in_round: int | None = 1, judge=None):
        self.found, self.agree_in_round, self.judge = found, agree_in_round, judge
        self.requests: list[tuple[str, str, dict]] = []

    def __call__(self, system: str, user: str):
        name, inputs = identify(system), parse_fields(user)
        self.requests.append((name, " ".join(system.split()), inputs))  # the prompt, whitespace normalised
        if name in GUIDED:
            return {"errors": self.found.get(DIMENSION[name[6:-10]], [])}
        if name.endswith("Reexamination"):
            debate = inputs["debate"]
            round_ = debate.count("] you:")
            stage1 = self.found[DIMENSION[name[:-13]]]
            if self.agree_in_round is not None and round_ >= self.agree_in_round:
                return {"analysis": "agreed", "errors": minor(stage1)}
            keeps = debate.startswith("[round 0] you:")  # A1, the defender, keeps its stage-1 annotations
            return {"analysis": "holding", "errors": stage1 if keeps else minor(stage1)}
        if name == "ConsensusCheck":
            return {"consensus": inputs["first_annotations"] == inputs["second_annotations"]}
        if name == "MergingJudgment":
            if self.judge:
                return self.judge(inputs)
            return {"analysis": "merged", "errors": [e for d in ("accuracy", "fluency", "terminology", "style")
                                                     for e in inputs[f"{d}_annotations"]]}
        raise LookupError(name)

    def names(self) -> list[str]:
        return [r[0] for r in self.requests]

    def of(self, name: str) -> list[tuple[str, dict]]:
        return [(system, inputs) for n, system, inputs in self.requests if n == name]


class CountingEngine(ScriptedEngine):
    """Also records how many messages each request carried (demos come as user/assistant pairs)."""

    def __init__(self, respond):
        super().__init__(respond)
        self.sizes: list[int] = []

    def complete(self, request):
        self.sizes.append(len(request.messages))
        return super().complete(request)


def run(recorder: Recorder, config: MMADConfig | None = None, demos: dict | None = None):
    engine = CountingEngine(recorder)
    program = MMAD(config or MMADConfig(), RoleLMs(dspy.LM("scripted/paper", engine=engine, cache=False)))
    for name, examples in (demos or {}).items():
        getattr(program, name).demos = list(examples)
    out = program(source=SOURCE, translation=TRANSLATION, source_lang="English", target_lang="German")
    return out, engine


def test_paper_is_the_default_preset():
    config = MMADConfig()
    assert config.preset == "paper" and (config.debated, config.debaters, config.opening) == \
        ("major", "minor-leaning", "downgraded")
    assert (config.consensus_check, config.judge, config.demo_rule) == ("separate", "most-severe", "fixed")


def test_only_dimensions_with_a_major_error_or_non_translation_are_debated():
    recorder = Recorder({"accuracy": [ACC], "fluency": [FLU], "style": [], "terminology": [NT]})
    out, _ = run(recorder)
    names = recorder.names()
    assert names[:4] == list(GUIDED) and names[-1] == "MergingJudgment"
    assert names.count("AccuracyReexamination") == names.count("TerminologyReexamination") == 2
    assert "FluencyReexamination" not in names and "StyleReexamination" not in names
    assert set(MTJudgment.of(out).debates) == {"accuracy", "terminology"}
    judged = recorder.of("MergingJudgment")[0][1]
    assert judged["fluency_annotations"] == [FLU | {"dimension": "fluency"}]  # undebated: as stage 1 found it


def test_the_opposer_opens_with_every_major_turned_to_minor_and_no_call_is_spent_on_openings():
    recorder = Recorder({"accuracy": [ACC, ACC | {"span": "Matte", "severity": "minor"}], "fluency": [],
                         "style": [], "terminology": [NT]})
    out, _ = run(recorder)
    views = [inputs["debate"] for _, inputs in recorder.of("AccuracyReexamination")]
    defender, opposer = views  # round 1: A1 then A2; the openings cost no call
    assert defender.startswith("[round 0] you:") and opposer.startswith("[round 0] other agent:")
    opening = next(t for t in out.transcript if t.dimension == "accuracy").turns[:2]
    assert [(t["role"], t["round"]) for t in opening] == [("defender", 0), ("opposer", 0)]
    assert [e["severity"] for e in opening[0]["errors"]] == ["major", "minor"]  # the stage-1 annotations
    assert [e["severity"] for e in opening[1]["errors"]] == ["minor", "minor"]  # every major turned to minor
    own = opposer.split("[round 0] you:")[1]
    assert '"minor"' in own and '"major"' not in own  # A2 reads the downgrade as its own opening
    nt_views = [inputs["debate"] for _, inputs in recorder.of("TerminologyReexamination")]
    assert REBUTTAL in nt_views[1].split("[round 0] you:")[1]  # non-translation: the published rebuttal


def test_the_minor_leaning_guidance_reaches_every_debate_prompt_and_only_those():
    recorder = Recorder({"accuracy": [ACC], "fluency": [], "style": [], "terminology": []}, agree_in_round=3)
    run(recorder)
    debate = [system for name, system, _ in recorder.requests if name.endswith("Reexamination")]
    assert len(debate) == 6 and all(SEVERITY_GUIDANCE in system for system in debate)
    others = [system for name, system, _ in recorder.requests if not name.endswith("Reexamination")]
    assert others and not any(SEVERITY_GUIDANCE in system for system in others)
    assert 'lean toward "minor."' in SEVERITY_GUIDANCE and "significantly impacts the meaning" in SEVERITY_GUIDANCE
    assert "Avoid assigning 'non-translation' unless absolutely necessary" in SEVERITY_GUIDANCE


def test_consensus_is_a_separate_yes_no_check_after_every_round():
    recorder = Recorder({"accuracy": [ACC], "fluency": [], "style": [], "terminology": []}, agree_in_round=2)
    out, _ = run(recorder)
    names = recorder.names()
    assert names[4:] == ["AccuracyReexamination", "AccuracyReexamination", "ConsensusCheck",
                         "AccuracyReexamination", "AccuracyReexamination", "ConsensusCheck", "MergingJudgment"]
    checks = [inputs for _, inputs in recorder.of("ConsensusCheck")]
    assert all(set(c) == {"first_annotations", "second_annotations"} for c in checks)  # sees the two lists only
    assert checks[0]["first_annotations"][0]["severity"] == "major" and \
        checks[0]["second_annotations"][0]["severity"] == "minor"
    assert MTJudgment.of(out).debates["accuracy"] == {"rounds": 2, "consensus": True, "decided_by": "consensus check"}
    assert out.score == -1  # the agreed (minor) annotations stand


def test_without_consensus_the_defenders_last_annotations_stand_after_r_rounds():
    recorder = Recorder({"accuracy": [ACC], "fluency": [], "style": [], "terminology": []}, agree_in_round=None)
    out, _ = run(recorder)
    assert recorder.names().count("AccuracyReexamination") == 6 and recorder.names().count("ConsensusCheck") == 3
    assert MTJudgment.of(out).debates["accuracy"]["consensus"] is False and MTJudgment.of(out).debates["accuracy"]["rounds"] == 3
    assert out.score == -5


def test_the_final_judge_keeps_the_most_severe_error_per_span_ties_by_typology_order():
    answer = [ACC | {"dimension": "accuracy", "severity": "minor"},
              ACC | {"dimension": "fluency", "subcategory": "grammar"},
              {"span": "Matte", "subcategory": "awkward", "severity": "minor", "dimension": "style"},
              {"span": "Matte", "subcategory": "inappropriate for context", "severity": "minor",
               "dimension": "terminology"}, FLU | {"dimension": "fluency"}]
    recorder = Recorder({"accuracy": [ACC], "fluency": [FLU], "style": [], "terminology": []},
                        judge=lambda inputs: {"analysis": "kept duplicates", "errors": answer})
    out, _ = run(recorder)
    assert [(e.span, e.dimension, e.severity) for e in out.errors] == \
        [("sass", "fluency", "major"), ("Matte", "terminology", "minor"), (" .", "fluency", "minor")]
    assert out.score == pytest.approx(-6.1)
    system = recorder.of("MergingJudgment")[0][0]
    assert "the one that is the most severe" in system and \
        "(accuracy, then fluency, then terminology, then style)" in system


def test_the_final_judge_may_declare_one_whole_segment_non_translation():
    answer = [NT | {"dimension": "accuracy", "span": "all"}, ACC | {"dimension": "accuracy"}]
    recorder = Recorder({"accuracy": [ACC], "fluency": [], "style": [], "terminology": []},
                        judge=lambda inputs: {"analysis": "unrelated", "errors": answer})
    out, _ = run(recorder)
    assert [(e.span, e.subcategory) for e in out.errors] == [(TRANSLATION, "non-translation")] and out.score == -25


def test_stage1_agents_share_the_mqm_guideline_and_style_has_only_awkward():
    recorder = Recorder({"accuracy": [], "fluency": [], "style": [], "terminology": []})
    out, _ = run(recorder)
    prompts = [system for name, system, _ in recorder.requests if name in GUIDED]
    for phrase in ("please be as fine-grained as possible", "you only need to indicate the one that is most severe",
                   "called non-translation, that spans the entire segment"):
        assert all(phrase in system for system in prompts), phrase
    style = prompts[2]
    assert '"enum": ["awkward", "non-translation"]' in style
    assert all('"non-translation"' in system for system in prompts)  # every agent may report it
    assert recorder.names() == list(GUIDED) and out.score == 0  # clean: no debate, no judge call


def test_a_minor_only_segment_costs_no_debate_and_one_judge_call():
    recorder = Recorder({"accuracy": [], "fluency": [FLU], "style": [], "terminology": []})
    out, _ = run(recorder)
    assert recorder.names() == [*GUIDED, "MergingJudgment"] and MTJudgment.of(out).debates == {}
    assert out.score == pytest.approx(-0.1)


@pytest.mark.parametrize("strategy, judge", [("deliberation", "DebateVerdict"), ("interactive-review", "ReviewTurn")])
def test_other_two_sided_strategies_run_the_published_debaters(strategy, judge):
    recorder = Recorder({"accuracy": [ACC], "fluency": [], "style": [], "terminology": []}, agree_in_round=None)
    decided = {"errors": [ACC | {"dimension": "accuracy", "severity": "minor"}], "questions": "", "decided": True}

    def respond(system, user):
        return decided if identify(system) == judge else recorder(system, user)

    engine = CountingEngine(respond)
    program = MMAD(MMADConfig(strategy=strategy, rounds=2), RoleLMs(dspy.LM("scripted/p", engine=engine, cache=False)))
    out = program(source=SOURCE, translation=TRANSLATION, source_lang="English", target_lang="German")
    debate = [name for name in recorder.names() if not name.startswith("Guided")]
    expected = {"deliberation": ["AccuracyReexamination"] * 4, "interactive-review": ["AccuracyReexamination"] * 2}
    assert debate[:-1] == expected[strategy] and out.score == -1  # the judge / reviewer decided: minor


def test_stage_ablations_keep_the_paper_prompts():
    recorder = Recorder({"accuracy": [ACC], "fluency": [], "style": [], "terminology": []})
    _, _ = run(recorder, MMADConfig(ablate=("stage2",)))
    assert recorder.names() == [*GUIDED, "MergingJudgment"]
    with pytest.raises(ValueError, match="consultancy-review has a single debater"):
        MMADConfig(strategy="consultancy-review")

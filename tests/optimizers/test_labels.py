"""Human-labelled TED examples become typed demos per predictor (programs/mqm/labels.py), and the
labelled optimizers (LabeledFewShot, BootstrapFewShot) put them where DSPy would put raw examples."""

from __future__ import annotations

import dspy
import pytest

from tests.optimizers.toy_task import ToyJudge, toy_examples
from tribunal.optimizers.labelled_demos import DemoLabeler, LabelledBootstrap, LabelledFewShot, labeler_for
from tribunal.optimizers.training_data import load_training_data
from tribunal.programs.mqm.eaprompt import EAPromptJudge
from tribunal.programs.mqm.gemba import GembaMQMJudge
from tribunal.programs.mqm.labels import PROGRAM_LABELS
from tribunal.programs.mqm.mmad import MMAD, MMADConfig
from tribunal.signatures.mqm.errors import AccuracyError, DimensionError, GembaError, StyleError

HEADER = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\tcomment\n"
ROWS = [  # item 0: two errors (one source-side omission); item 1: clean; item 2: "Other"; item 3: no span
    "A\tt\t1\t1\tr1\tThe red dog barks.\tDer <v>Hund</v> bellt.\tAccuracy/Mistranslation\tMajor\t\n",
    "A\tt\t1\t1\tr1\tThe <v>red</v> dog barks.\tDer Hund bellt.\tAccuracy/Omission\tMinor\t\n",
    "A\tt\t1\t1\tr1\tThe red dog barks.\tDer Hund <v>bellt</v>.\tStyle/Awkward\tMinor\t\n",
    "B\tt\t1\t1\tr2\tThe red dog barks.\tDer rote Hund bellt.\tNo-error\tNo-error\t\n",
    "C\tt\t1\t1\tr1\tThe red dog barks.\tDer <v>rote</v> Hund.\tOther\tMajor\t\n",
    "D\tt\t1\t1\tr1\tThe red dog barks.\tRoter Hund bellt.\tFluency/Grammar\tMinor\t\n",
]


@pytest.fixture
def ted(tmp_path):
    path = tmp_path / "mqm_ted_ende.tsv"
    path.write_text(HEADER + "".join(ROWS), encoding="utf-8")
    return load_training_data(f"mqm-ted:{path}").examples


def test_every_labelled_predictor_exists_in_its_program():
    from tribunal.programs.mqm.ape import MQMAPEJudge
    from tribunal.programs.mqm.esa import ESAConfig, GembaESAJudge

    from tribunal.programs.mqm.error_free import ErrorFreeJudge
    from tribunal.programs.mqm.gemba_v2 import GembaMQMV2Judge
    from tribunal.programs.mqm.joint import JointMQMJudge

    programs = {"gemba-mqm": [GembaMQMJudge()], "gemba-mqm-v2": [GembaMQMV2Judge()], "eaprompt": [EAPromptJudge()],
                "mmad": [MMAD(), MMAD(MMADConfig(ablate=("stage1",)))],
                "gemba-esa": [GembaESAJudge(), GembaESAJudge(ESAConfig(ablate=("spans",)))], "mqm-ape": [MQMAPEJudge()],
                "error-free": [ErrorFreeJudge()], "joint-mqm": [JointMQMJudge()]}
    assert set(PROGRAM_LABELS) == set(programs)
    for name, builds in programs.items():
        paths = {path for program in builds for path, _ in program.named_predictors()}
        assert set(PROGRAM_LABELS[name]) <= paths, name


def test_gemba_demo_carries_the_human_errors_in_gembas_scheme(ted):
    labeler = labeler_for("gemba-mqm")
    first, clean, other, no_span = (labeler.labels["annotate"](e) for e in ted)
    assert set(first.inputs().keys()) == {"source", "translation", "source_lang", "target_lang"}
    assert first.errors == [
        GembaError(span="Hund", category="accuracy", subcategory="mistranslation", severity="major"),
        GembaError(span="red", category="accuracy", subcategory="omission", severity="minor", is_source_error=True),
        GembaError(span="bellt", category="style", subcategory="awkward", severity="minor")]
    assert clean.errors == [] and other.errors[0].category == "other"
    assert no_span is None  # an error without a span cannot be shown as a span annotation
    assert "gold_errors" not in first and "gold_score" not in first  # only the predictor's fields


def test_mmad_agents_get_their_own_dimension_with_a_rationale(ted):
    labels = PROGRAM_LABELS["mmad"]
    accuracy = labels["accuracy"](ted[0])
    assert accuracy.errors == [AccuracyError(span="Hund", subcategory="mistranslation", severity="major"),
                               AccuracyError(span="red", subcategory="omission", severity="minor",
                                             is_source_error=True)]
    assert "'Hund' is a major accuracy error (mistranslation)" in accuracy.rationale
    assert "(in the source)" in accuracy.rationale
    assert labels["style"](ted[0]).errors == [StyleError(span="bellt", subcategory="awkward", severity="minor")]
    assert labels["terminology"](ted[0]).errors == [] and labels["terminology"](ted[0]).rationale == \
        "No terminology errors."
    assert labels["fluency"](ted[3]) is None  # a fluency error without a span does not fit the schema
    assert labels["accuracy"](ted[3]).errors == []  # ... but says nothing about accuracy
    coupled = labels["coupled"](ted[0])
    assert [(e.dimension, e.span) for e in coupled.errors] == [("accuracy", "Hund"), ("accuracy", "red"),
                                                                ("style", "bellt")]
    assert all(isinstance(e, DimensionError) for e in coupled.errors)
    assert labels["coupled"](ted[2]) is None  # "Other" is in none of the four dimensions


def test_eaprompt_demo_counts_major_and_minor(ted):
    demo = PROGRAM_LABELS["eaprompt"]["analyse"](ted[0])
    assert (demo.major_errors, demo.minor_errors) == (1, 2)
    assert demo.analysis.splitlines()[0] == "1. 'Hund': accuracy/mistranslation, major."
    assert PROGRAM_LABELS["eaprompt"]["analyse"](ted[3]).analysis == "1. (no marked span): fluency/grammar, minor."


def test_labeled_few_shot_gives_each_predictor_its_typed_demos(ted):
    compiled = LabelledFewShot(k=3, labeler=labeler_for("mmad")).compile(MMAD(), trainset=ted)
    demos = {path: p.demos for path, p in compiled.named_predictors()}
    assert all(len(demos[d]) == 3 for d in ("accuracy", "style", "terminology")) and len(demos["fluency"]) == 3
    assert all(isinstance(e, AccuracyError) for d in demos["accuracy"] for e in d.errors)
    assert demos["judge"] == [] and demos["debate.debaters.accuracy"] == []  # no human label for these
    raw = LabelledFewShot(k=2).compile(ToyJudge(), trainset=toy_examples(4))  # no labeler: DSPy's behaviour
    assert raw.judge.demos == dspy.teleprompt.LabeledFewShot(k=2).compile(ToyJudge(), trainset=toy_examples(4)) \
        .judge.demos


def test_bootstrap_teacher_never_sees_the_example_it_is_bootstrapping(ted_en_de):
    from tests.optimizers.mqm_task import DemoGatedEngine
    from tribunal.optimizers.mt_metric import MQMMetric

    ted = load_training_data("mqm-ted:en-de:0-40").examples
    with_errors = [e for e in ted if e.gold_errors and labeler_for("gemba-mqm").labels["annotate"](e)][:2]
    for train, answered_by_human in ((with_errors[:1], 0), (with_errors, 2)):
        engine = DemoGatedEngine()
        optimizer = LabelledBootstrap(metric=MQMMetric(), max_bootstrapped_demos=2, max_labeled_demos=2,
                                      labeler=labeler_for("gemba-mqm"))
        with dspy.context(lm=dspy.LM("openai/judge", engine=engine, cache=False)):
            optimizer.compile(GembaMQMJudge(), trainset=train)
        # alone, the example's own demo is dropped (no demos: the synthetic judge answers);
        # with a second example, the other one's demo unlocks the human answer
        assert engine.with_demos == answered_by_human


def test_derived_from_compares_inputs():
    example = dspy.Example(source="s", translation="t", gold_score=0).with_inputs("source", "translation")
    assert DemoLabeler.derived_from(dspy.Example(source="s", translation="t", errors=[]), example)
    assert not DemoLabeler.derived_from(dspy.Example(source="s", translation="u", errors=[]), example)


def test_error_free_demo_says_error_free_only_without_a_human_error(ted):
    label = PROGRAM_LABELS["error-free"]["decide"]
    first, clean = label(ted[0]), label(ted[1])
    assert first.error_free is False and clean.error_free is True
    assert set(clean.inputs().keys()) == {"source", "translation", "source_lang", "target_lang"}

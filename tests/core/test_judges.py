"""The judge registry: each entry complete and consistent, every derived table equal to it, and a judge
added to it reaching ``mt evaluate``, the MLflow scorer and the optimizers without another file changed."""

from __future__ import annotations

import typing

import dspy
import pytest
from pydantic import BaseModel, ValidationError

from tribunal.core.judge_settings import Ablations, JudgeSettings
from tribunal.core.judges import JUDGES, Judge
from tribunal.eval.mt.config import EvaluateConfig
from tribunal.programs.lm import LMSettings

MT = JUDGES.names("mt")
LM = LMSettings(model="openai/x")


def predictors(judge: Judge, settings=None) -> set[str]:
    return {path for path, _ in judge.build(settings).named_predictors()}


def ablations(judge: Judge) -> tuple[str, ...]:
    annotation = judge.settings_model().model_fields["ablate"].annotation  # tuple[Literal[...], ...]
    return typing.get_args(typing.get_args(annotation)[0])


@pytest.mark.parametrize("judge", list(JUDGES), ids=lambda j: j.name)
def test_every_entry_builds_its_judge_and_names_what_exists(judge):
    program = judge.build()
    assert isinstance(program, dspy.Module) and judge.kind in ("mt", "equiv")
    assert judge.title and judge.scale in ("mqm", "esa")
    if judge.settings is not None:
        model = judge.settings_model()
        assert issubclass(model, BaseModel) and model.model_config.get("extra") == "forbid"
        assert isinstance(judge.build(model()), dspy.Module)
        assert issubclass(model, JudgeSettings), judge.name  # names, signature fields and params come from it
        if issubclass(model, Ablations):
            assert set(model.model_fields) == {"ablate"}, judge.name
    if judge.spans_switch is not None:
        assert judge.spans_switch in ablations(judge)
        assert judge.spans_marked() and not judge.spans_marked(judge.settings_model()(ablate=(judge.spans_switch,)))
    every = predictors(judge)
    if judge.settings is not None and "ablate" in judge.settings_model().model_fields:
        for switch in ablations(judge):  # a predictor of an ablated variant (M-MAD's coupled agent) counts too
            every |= predictors(judge, judge.settings_model()(ablate=(switch,)))
    assert set(judge.label_functions()) <= every, judge.name
    groups = dict(judge.role_groups)
    assert set(groups) <= set(judge.role_names()) and set(groups.values()) <= set(judge.role_names())


@pytest.mark.parametrize("judge", [j for j in JUDGES if j.fallbacks], ids=lambda j: j.name)
def test_a_fallback_stands_in_for_roles_of_its_own_judge(judge):
    from tribunal.core.judges import load
    from tribunal.programs.fallbacks import Fallback

    fallbacks = load(judge.fallbacks)
    fallbacks = list(fallbacks.values()) if isinstance(fallbacks, dict) else [fallbacks]
    assert fallbacks and all(isinstance(f, Fallback) and set(f.roles) <= set(judge.role_names()) for f in fallbacks)


@pytest.mark.parametrize("name", MT)
def test_every_mt_judge_has_its_config_section_roles_and_demo_plan(name):
    judge = JUDGES.get(name)
    assert judge.role_names(), name
    config = EvaluateConfig(lp="zh-en", lm=LM, program=name)
    assert config.metric_name.startswith(judge.title) and config.judge is judge
    if judge.settings is not None:
        assert type(config.program_settings()) is judge.settings_model()
        assert type(EvaluateConfig(lp="zh-en", lm=LM, program=name, **{judge.settings.section: {}}).settings) is \
            judge.settings_model()
    else:
        assert config.program_settings() is None
    plan = judge.demo_plan()
    assert config.demo_count == (plan.count(config.program_settings(), None) if plan else 0)


def test_one_default_per_kind_and_each_option_has_one_owner():
    assert [j.name for j in JUDGES if j.default] == [JUDGES.default("mt"), JUDGES.default("equiv")]
    options = [option for judge in JUDGES for option in judge.options]
    assert len(options) == len(set(options))
    sections = [j.settings.section for j in JUDGES if j.settings]
    assert len(sections) == len(set(sections))


def test_every_derived_table_equals_the_registry():
    from tribunal.cli.mt_evaluate_config import owned_options
    from tribunal.optimizers.program_settings import ModelSettings, _settings
    from tribunal.optimizers.program_source import program_kind
    from tribunal.programs.mqm.labels import PROGRAM_LABELS
    from tribunal.programs.registry import program_names

    shipped = [j for j in JUDGES if not j.name.startswith("test-")]  # the optimizer tests register a toy
    assert {j.name for j in shipped} <= set(program_names())
    assert [n for n in JUDGES.names("mt") if not n.startswith("test-")] == MT
    assert set(PROGRAM_LABELS) == {j.name for j in JUDGES if j.labels}
    assert set(JUDGES.roles()) >= {"accuracy", "debater", "gemba", "eaprompt", "evaluator", "scorer", "post_editor", "verifier"}
    assert list(owned_options()) == [o for j in JUDGES for o in j.options]
    assert all(JUDGES.owner(o) is judge for o, judge in owned_options().items())
    for judge in shipped:
        assert program_kind(judge.name, None) == judge.kind
        settings = _settings(judge.name)
        assert (settings.model if isinstance(settings, ModelSettings) else None) == \
            (judge.settings.model if judge.settings else None)


def test_a_program_name_is_checked_against_the_registry_as_a_choice():
    with pytest.raises(ValidationError) as raised:
        EvaluateConfig(lp="zh-en", lm=LM, program="equiv-llm")  # a judge, but not an MT one
    assert raised.value.errors()[0]["msg"] == \
        "Input should be " + ", ".join(repr(n) for n in MT[:-1]) + f" or {MT[-1]!r}"


# A judge a researcher adds: GEMBA-MQM's program under a name and display name of its own.
COPY = Judge("test-gemba-copy", "tribunal.programs.mqm.gemba:GembaMQMJudge", "mt", "GEMBA-COPY", roles=("gemba",),
             labels="tribunal.programs.mqm.labels:GEMBA_LABELS",
             demos="tribunal.programs.mqm.baseline_demos:GEMBA_MQM_DEMOS")


@pytest.fixture
def added():
    JUDGES.add(COPY)
    yield COPY
    JUDGES.remove(COPY.name)


def test_an_added_judge_is_a_program_of_every_command(added, tmp_path):
    from typer.testing import CliRunner

    from tribunal.cli import app
    from tribunal.optimizers.labelled_demos import labeler_for
    from tribunal.optimizers.program_source import resolve_program
    from tribunal.programs.mqm.gemba import GembaMQMJudge
    from tribunal.scorers import MQMJudge

    # mt evaluate: --program validation takes it (the run stops at the missing data, after validation)
    (tmp_path / "data").mkdir()
    result = CliRunner().invoke(app, ["mt", "evaluate", "--program", added.name, "--lp", "zh-en", "--lm", "openai/x",
                                      "--data", str(tmp_path / "data"), "--no-track"])
    assert "not a folder in the mt-metrics-eval layout" in str(result.exception) or \
        "not a folder in the mt-metrics-eval layout" in result.output, result.output
    # the scorer
    config = MQMJudge(program=added.name, lm="openai/x").evaluate_config("zh-en")
    assert (config.program, config.metric_name, config.demo_count) == (added.name, "GEMBA-COPY", 3)
    # the optimizers
    resolved = resolve_program(added.name, expected_kind="mt")
    assert isinstance(resolved.program, GembaMQMJudge) and resolved.kind == "mt"
    assert labeler_for(added.name) is not None
    assert added.name not in JUDGES.names("equiv")


def test_a_removed_judge_is_refused_again(added):
    from tribunal.scorers import MQMJudge

    JUDGES.remove(added.name)
    with pytest.raises(ValidationError, match="Input should be"):
        MQMJudge(program=added.name, lm="openai/x")
    JUDGES.add(added)


def test_a_role_of_a_judge_registered_after_import_is_known():
    from dataclasses import replace

    from tribunal.programs.mqm.roles import RoleLMs

    late = replace(COPY, name="test-late-role", roles=("late_reviewer",))
    with pytest.raises(ValueError, match="unknown role"):
        RoleLMs(roles={"late_reviewer": object()})
    JUDGES.add(late)
    try:
        assert RoleLMs(roles={"late_reviewer": "lm"}).roles == {"late_reviewer": "lm"}
    finally:
        JUDGES.remove(late.name)

"""The optimizer registry's budget adapters and LM roles; ``--program NAME|FILE`` resolution."""

from __future__ import annotations

import pytest
from dspy import teleprompt

from tests.optimizers.toy_task import ToyEngine, ToyJudge, toy_examples, toy_lm
from tribunal.errors import UserError
from tribunal.optimizers.equiv_metric import EquivalenceMetric
from tribunal.data.program_export import export_document, write_export
from tribunal.optimizers.program_source import resolve_program
from tribunal.optimizers.registry import OPTIMIZERS, TuningContext, optimizer_spec, plan

BUDGET_KNOB = {"labeled": "k", "bootstrap": "max_bootstrapped_demos", "random-search": "num_candidate_programs",
               "mipro": "num_trials", "simba": "max_steps", "gepa": "max_metric_calls"}


def context(**overrides):
    values = dict(metric=EquivalenceMetric(), task_lm=toy_lm(ToyEngine()), budget=7, seed=3,
                  train=toy_examples(8), dev=toy_examples(4, 50), prompt_lm=toy_lm(ToyEngine(), "toy/prompt"))
    return TuningContext(**{**values, **overrides})


def test_every_optimizer_is_registered_and_maps_the_budget_to_its_knob():
    assert list(OPTIMIZERS) == list(BUDGET_KNOB)
    for name, knob in BUDGET_KNOB.items():
        configured = plan(optimizer_spec(name), context())
        assert configured.knobs[knob] == 7, name
        assert isinstance(configured.optimizer, getattr(teleprompt, OPTIMIZERS[name].dspy_name)), name


def test_knobs_reach_the_dspy_optimizer():
    simba = plan(optimizer_spec("simba"), context(budget=3)).optimizer
    assert (simba.max_steps, simba.bsize) == (3, 8)  # mini-batch capped by the training set
    gepa = plan(optimizer_spec("gepa"), context(budget=30)).optimizer
    assert gepa.max_metric_calls == 30 and gepa.reflection_lm is not None
    mipro = plan(optimizer_spec("mipro"), context(budget=6))
    assert mipro.compile_kwargs["num_trials"] == 6 and mipro.optimizer.num_candidates == 3


def test_lm_roles_and_budget_are_checked():
    teacher = toy_lm(ToyEngine(), "toy/teacher")
    assert plan(optimizer_spec("bootstrap"), context(teacher_lm=teacher)).optimizer.teacher_settings == {"lm": teacher}
    for name in ("labeled", "gepa"):
        with pytest.raises(UserError, match="takes no teacher LM"):
            plan(optimizer_spec(name), context(teacher_lm=teacher))
    with pytest.raises(UserError, match="needs a prompt/reflection LM"):
        plan(optimizer_spec("mipro"), context(prompt_lm=None))
    with pytest.raises(UserError, match="at least 1"):
        plan(optimizer_spec("labeled"), context(budget=0))
    with pytest.raises(UserError, match="unknown optimizer 'copro'"):
        optimizer_spec("copro")


def test_resolve_program_by_name_and_by_export(tmp_path):
    by_name = resolve_program("test-toy-equiv", expected_kind="equiv")
    assert isinstance(by_name.program, ToyJudge) and by_name.kind == "equiv" and by_name.label == "test-toy-equiv"
    tuned = ToyJudge()
    tuned.judge.demos = toy_examples(2)
    path = write_export(export_document(tuned, "test-toy-equiv", {}, {"dev_score": 1.0}), tmp_path / "judge.json")
    by_file = resolve_program(str(path))
    assert by_file.name == "test-toy-equiv" and by_file.source == str(path)
    assert len(by_file.program.judge.demos) == 2 and by_file.label.startswith("test-toy-equiv@")
    assert by_file.document["metadata"]["dev_score"] == 1.0


def test_resolve_program_errors(tmp_path):
    with pytest.raises(UserError, match="is an equivalence judge, but the data needs an MT judge"):
        resolve_program("test-toy-equiv", expected_kind="mt")
    with pytest.raises(UserError, match="unknown program 'nope'"):
        resolve_program("nope")
    with pytest.raises(UserError, match="no such file"):
        resolve_program(str(tmp_path / "missing.json"))

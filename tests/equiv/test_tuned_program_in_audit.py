"""A tuned equiv-llm export drives the audit's LLM rule: its instruction reaches the LM."""

from __future__ import annotations

import pytest

from tribunal.errors import UserError
from tribunal.eval.equiv.suite import load_suite
from tribunal.data.program_export import export_document, write_export
from tribunal.optimizers.program_source import resolve_program
from tribunal.programs.equiv_judge import EquivalenceJudge


@pytest.fixture
def tuned_export(tmp_path):
    program = EquivalenceJudge("none")
    program.judge.signature = program.judge.signature.with_instructions("TUNED: compare the initiating events.")
    return write_export(export_document(program, "equiv-llm", {"rubric": "none"}, {"dev_score": 0.8}),
                        tmp_path / "judge.json")


def test_audit_llm_rule_runs_the_tuned_judge(scripted, tuned_export):
    from tribunal.eval.equiv.rule_set import build_rules

    resolved = resolve_program(str(tuned_export), expected_kind="equiv")
    lm, engine = scripted.scripted_lm(lambda system, user: {"verdict": "different"})
    options = dict(lm=lm, lm_name="scripted", threads=1, program=resolved.program, program_label=resolved.label)
    [rule] = build_rules("llm", "full,component", options)  # the export's rubric wins
    assert rule.rubric == "none" and rule.label.startswith("llm-none@")
    pair = load_suite().pairs[2]
    [judgment] = rule.judge_pairs([(pair.original, pair.perturbed)])
    assert judgment.same is False
    assert all("TUNED: compare the initiating events." in system for system, _ in engine.calls)


def test_mt_export_is_refused_for_the_audit(tmp_path):
    from tribunal.programs.mqm.gemba import GembaMQMJudge

    path = write_export(export_document(GembaMQMJudge(), "gemba-mqm", {}, {}), tmp_path / "gemba.json")
    with pytest.raises(UserError, match="is an MT judge, but the data needs an equivalence judge"):
        resolve_program(str(path), expected_kind="equiv")

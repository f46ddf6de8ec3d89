"""The rubrics' texts (the paper's clauses), the stepwise rubric everywhere rubrics are, and an audit row
per rubric with a scripted judge that follows the rubric text (wiring, not a model)."""

from __future__ import annotations

import pytest

from tests.support.rubric_reader import rubric_reader
from tests.support.scripted_lm import scripted_lm
from tribunal.eval.equiv.rule_set import build_rules
from tribunal.eval.equiv.audit_job import run_audit
from tribunal.eval.equiv.suite import load_suite
from tribunal.eval.tracking.mlflow_run import TrackingSettings
from tribunal.signatures.equiv_judge import RUBRICS, STEPWISE_INSTRUCTION
from tribunal.signatures.hyp_engagement import JudgeEngagement


def words(text: str) -> str:
    return " ".join(text.split())


def test_the_full_rubric_is_the_papers_and_stepwise_adds_the_step_by_step_instruction():
    full, stepwise = words(RUBRICS["full"].instructions), words(RUBRICS["stepwise"].instructions)
    assert "when they posit a genuinely different load-bearing route" in full
    assert "a load-bearing step of the route differs" not in full
    assert "first link" not in full and "compare the first link of each causal chain on its own" in stepwise
    assert stepwise == words(f"{RUBRICS['full'].instructions}\n{STEPWISE_INSTRUCTION}")
    assert "opposite direction or causal orientation" in full
    assert "the initiating event can differ even when downstream language overlaps" in full
    assert list(RUBRICS) == ["full", "stepwise", "component", "none"]
    assert RUBRICS["stepwise"].output_fields.keys() == RUBRICS["full"].output_fields.keys()


def test_the_engagement_judge_speaks_the_papers_words():
    text = words(JudgeEngagement.instructions)
    assert "challenged a mechanistic hypothesis" in text and "scientific" not in text
    assert "keeps its claim" not in text
    assert "it gives a reason, evidence, or a stated ground for refusing it;" in text
    assert "not whether it is right or the mechanism is plausible" in text


def test_stepwise_is_a_rubric_of_the_cli_the_scorer_optimize_and_exports(tmp_path):
    from tribunal.data.program_export import export_document, write_export
    from tribunal.optimizers.program_loader import load_program
    from tribunal.optimizers.program_source import resolve_program
    from tribunal.scorers import EquivalenceJudge

    lm, _ = scripted_lm(lambda system, user: {"verdict": "same"})
    [rule] = build_rules("llm", "stepwise", dict(lm=lm, lm_name="scripted/x", threads=1))
    assert rule.label == "llm-stepwise" and rule.params()["rubric"] == "stepwise"
    assert EquivalenceJudge(rubric="stepwise").name == "equivalence_llm_stepwise"
    resolved = resolve_program("equiv-llm", expected_kind="equiv", settings={"rubric": "stepwise"})
    assert resolved.program.rubric == "stepwise" and resolved.config == {"rubric": "stepwise"}
    path = write_export(export_document(resolved.program, "equiv-llm", resolved.config, {}), tmp_path / "eq.json")
    loaded = load_program(path)[0]
    assert loaded.rubric == "stepwise" and "first link" in loaded.judge.signature.instructions


def test_an_audit_row_per_rubric_with_a_judge_that_follows_the_rubric_text():
    suite = load_suite()
    lm, engine = scripted_lm(rubric_reader([h for p in suite.pairs for h in (p.original, p.perturbed)]))
    rules = build_rules("llm", "full,stepwise,component,none", dict(lm=lm, lm_name="scripted/reader", threads=1))
    table = run_audit(suite, rules, 1, TrackingSettings(enabled=False)).table().set_index("rule")
    kinds = ["wording-only", "wording-chain", "first-step-swapped", "middle-step-swapped"]
    assert table.loc["llm-full", kinds].tolist() == [0.0, 0.0, 0.0, 1.0]
    assert table.loc["llm-stepwise", kinds].tolist() == [0.0, 0.0, 1.0, 1.0]
    assert table.loc["llm-component", kinds].tolist() == [0.0, 0.0, 1.0, 1.0]
    assert table.loc["llm-none", kinds].tolist() == [0.0, 0.0, 0.0, 0.0]
    assert table["order_flip_rate"].tolist() == [0.0] * 4 and len(engine.calls) == 4 * 2 * len(suite.pairs)


@pytest.mark.parametrize("rubric, first, second, same", [
    ("full", ["a", "b", "c", "d"], ["x", "b", "c", "d"], True),  # downstream overlap hides the first step
    ("full", ["a", "b", "c", "d"], ["x", "y", "z", "d"], False),
    ("stepwise", ["a", "b", "c", "d"], ["x", "b", "c", "d"], False),
    ("none", ["a", "b", "c", "d"], ["a", "y", "z", "d"], True),
    ("none", ["a", "b", "c", "d"], ["x", "y", "z", "d"], False),
])
def test_the_scripted_judge_reads_only_the_clauses_it_is_shown(rubric, first, second, same):
    from tests.support.rubric_reader import follows_rubric

    assert follows_rubric(RUBRICS[rubric].instructions, first, second) is same

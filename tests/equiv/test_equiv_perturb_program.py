"""The LM perturbation generator keeps only candidates that pass the deterministic checks."""

import json

import pytest

from tribunal.eval.equiv.checks import check_perturbation
from tribunal.eval.equiv.generate_job import generate_pairs, write_pairs
from tribunal.eval.equiv.suite import Suite, load_suite
from tribunal.programs.equiv_perturb import PerturbationGenerator


@pytest.fixture(scope="module")
def small_suite():
    full = load_suite()
    return Suite(name="small", hash="x", pairs=full.pairs[:4])  # one original, four of its kinds


def _answer_from(hypothesis_text, change):
    data = json.loads(hypothesis_text)
    change(data)
    return {"statement": data["statement"], "explanation": data["explanation"],
            "steps": data["steps"], "relations": data["relations"]}


def test_valid_first_step_swap_is_kept_and_temperature_is_0_3(scripted, small_suite):
    def swap_first(data):
        data["steps"][0] = {"entity": "renal artery stenosis", "text": "renal artery stenosis"}

    lm, engine = scripted.scripted_lm(lambda s, u: _answer_from(scripted.field(u, "hypothesis"), swap_first))
    import dspy

    with dspy.context(lm=lm):
        out = PerturbationGenerator(check=check_perturbation)(hypothesis=small_suite.pairs[0].original, kind="first-step-swapped")
    assert out.perturbed is not None and out.problems == []
    assert out.perturbed.steps[0].entity == "renal artery stenosis"
    assert lm.history[-1]["kwargs"]["temperature"] == 0.3


def test_candidate_failing_its_check_is_rejected(scripted, small_suite):
    # claims to be wording-only but changes a step: must not be kept
    def bad(data):
        data["steps"][1]["text"] = "something else"
        data["explanation"] = data["explanation"].replace("leads to", "results in")

    lm, engine = scripted.scripted_lm(lambda s, u: _answer_from(scripted.field(u, "hypothesis"), bad))
    result = generate_pairs(small_suite, lm, kinds=["wording-only"], attempts=2)
    assert result.kept == []
    assert result.rejected[0]["problems"] == ["chain changed (steps must be identical)"]
    assert len(engine.calls) == 2  # retried once, then gave up


def test_kept_pairs_round_trip_through_the_suite_loader(scripted, small_suite, tmp_path):
    def reword(data):
        data["explanation"] = "In other words: " + data["explanation"]

    lm, _ = scripted.scripted_lm(lambda s, u: _answer_from(scripted.field(u, "hypothesis"), reword))
    result = generate_pairs(small_suite, lm, kinds=["wording-only"])
    assert len(result.kept) == 1
    write_pairs(result.kept, tmp_path / "gen.jsonl")
    loaded = load_suite(tmp_path / "gen.jsonl")
    assert [p.kind for p in loaded.pairs] == ["wording-only"]


def test_garbage_answer_is_rejected_with_reason(scripted, small_suite):
    lm, _ = scripted.scripted_lm(lambda s, u: "no idea")
    result = generate_pairs(small_suite, lm, kinds=["middle-step-swapped"], attempts=1)
    problem = result.rejected[0]["problems"][0]
    assert not result.kept and problem.startswith("refusal: it gave none of the fields asked for")
    assert "perturbation generator, asked 3 times" in problem and "\n" not in problem

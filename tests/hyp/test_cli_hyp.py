"""``tribunal hyp run`` / ``hyp divergence`` from the command line (loopback HTTP server for the LM)."""

import json
import uuid
from collections import Counter
from importlib import resources

import pytest
from typer.testing import CliRunner

from tests.hyp.constructed import depth_split_runs, store
from tests.hyp.workflow_lm import FIRST_LINES, answer
from tests.support import mqm_fakes
from tests.support.loopback import loopback_server
from tribunal.cli import app

runner = CliRunner()


def _instances(tmp_path):
    example = json.loads((resources.files("tribunal.eval.hyp") / "instances" / "example.json").read_text())
    second = {**example, "id": "second", "opening_hypotheses": ["Second instance, opening A.", "Second instance, opening B."],
              "evidence": ["A plain-string passage."]}
    path = tmp_path / "instances.jsonl"
    path.write_text(json.dumps(example) + "\n" + json.dumps(second) + "\n")
    return path


@pytest.fixture
def hyp_server(monkeypatch):
    monkeypatch.setattr(mqm_fakes, "_FIRST_LINES", FIRST_LINES)  # route the workflow's signatures
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback-test")  # the loopback server checks no key
    calls = Counter()
    with loopback_server(lambda role, inputs: answer(role, inputs, calls)) as (api_base, state):
        yield api_base, calls


def test_help_lists_the_new_options():
    run_help = runner.invoke(app, ["hyp", "run", "--help"], env={"COLUMNS": "250"}).output
    for option in ("--instance", "--judge-lm", "--judge-temperature", "--max-per-opening", "--no-engagement"):
        assert option in run_help
    divergence_help = runner.invoke(app, ["hyp", "divergence", "--help"], env={"COLUMNS": "250"}).output
    for option in ("--matching", "--alternative", "--exact-limit", "--samples", "--seed", "--no-frame-judge"):
        assert option in divergence_help


def test_hyp_run_end_to_end_over_http_with_two_instances_and_a_judge(tmp_path, hyp_server):
    api_base, calls = hyp_server
    model = f"openai/hyp-{uuid.uuid4().hex[:8]}"  # DSPy's disk cache is machine-wide: a fresh key space
    args = ["hyp", "run", "--lm", model, "--api-base", api_base, "--instance", str(_instances(tmp_path)),
            "--depths", "0,1", "--reruns", "2", "--max-per-opening", "1", "--judge-lm", f"{model}-judge",
            "--threads", "1", "--no-track"]
    first = runner.invoke(app, args + ["--out", str(tmp_path / "a")], env={"COLUMNS": "250"})
    assert first.exit_code == 0, first.output
    assert "8 runs of 2 instance(s)" in first.output and "4 labelled by the engagement judge" in first.output
    # depth 0: 2 reruns x (3 + 2) openings; depth 1: 2 reruns x 5 openings x (propose, critique, revise).
    # The scripted server answers both reruns alike, so their 10 challenges are 5 distinct ones: the judge
    # (temperature 0) pays for each once, and the cache answers the repeat, as it should for a judge.
    assert calls == {"propose": 10 + 10, "critique": 10, "revise": 10, "engage": 5}
    record = json.loads((tmp_path / "a" / "runs" / "second" / "d1-r0.json").read_text())
    assert record["engagement_judge"] == f"{model}-judge"
    assert record["challenges"][0]["labels"] == ["answered", "conceded", "partial", "dropped"]
    second = runner.invoke(app, args + ["--out", str(tmp_path / "b")], env={"COLUMNS": "250"})
    assert second.exit_code == 0, second.output
    assert calls["propose"] == 40  # independent reruns: nothing replayed from DSPy's cache


def test_engagement_judge_gets_its_own_lm_at_temperature_zero(tmp_path, monkeypatch):
    import tribunal.eval.hyp.run_job as run_job

    seen = {}

    def capture(instances, settings, lm, public, out, tracking, judge_lm, judge_public, cap=None):
        seen.update(lm=lm, judge=judge_lm, judge_public=judge_public, settings=settings)
        return run_job.RunJobResult([], 0, 0, "sig", None)

    monkeypatch.setattr(run_job, "run_workflow", capture)
    result = runner.invoke(app, ["hyp", "run", "--lm", "openai/gen", "--judge-lm", "openai/judge", "--no-track",
                                 "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert seen["lm"].model == "openai/gen" and seen["lm"].kwargs["temperature"] == 0.7
    assert seen["judge"].model == "openai/judge" and seen["judge"].kwargs["temperature"] == 0.0
    assert seen["settings"].max_per_opening == 3
    off = runner.invoke(app, ["hyp", "run", "--lm", "openai/gen", "--no-engagement", "--no-track", "--out", str(tmp_path)])
    assert off.exit_code == 0 and seen["judge"] is None


def test_a_bad_instance_file_is_a_user_error_naming_its_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "research_question": "q", "observed_finding": "f", "opening_hypotheses": ["o"]}\n'
                   '{"id": "b", "research_question": "q", "observed_finding": "f", "opening_hypotheses": []}\n')
    result = runner.invoke(app, ["hyp", "run", "--lm", "openai/x", "--instance", str(bad), "--no-track"])
    assert result.exit_code != 0 and f"{bad}:2: opening_hypotheses" in str(result.exception)


def test_hyp_divergence_prints_the_matching_and_the_joint_test(tmp_path):
    store(tmp_path, [r for name, k in zip("abcd", (5, 5, 4, 3)) for r in depth_split_runs(name, k)])
    result = runner.invoke(app, ["hyp", "divergence", str(tmp_path), "--rules", "tfidf", "--no-track"],
                           env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    assert "lineage matching: 540 matched pairs over 180 run pairs (4 instance(s))" in result.output
    assert "two-sided" in result.output and "exact" in result.output
    assert (tmp_path / "divergence" / "divergence.tsv").is_file()
    slot = runner.invoke(app, ["hyp", "divergence", str(tmp_path), "--rules", "tfidf", "--matching", "slot",
                               "--alternative", "greater", "--no-track"], env={"COLUMNS": "250"})
    assert slot.exit_code == 0 and "slot matching" in slot.output and "greater" in slot.output
    bad = runner.invoke(app, ["hyp", "divergence", str(tmp_path), "--matching", "pairs", "--no-track"])
    assert bad.exit_code != 0 and "--matching" in str(bad.exception)

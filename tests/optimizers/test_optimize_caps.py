"""``--max-calls`` under ``tribunal optimize``: the cap holds over every trial; the best candidate is exported."""

from __future__ import annotations

from typer.testing import CliRunner

from tests.support.injected_engine import use_engine
from tribunal.cli import app
from tribunal.errors import EXIT_CAPPED

MODEL = "openai/gpt-4o-mini"


def test_a_call_cap_under_optimize_exports_the_best_candidate_scored_before_it(tmp_path, monkeypatch):
    from tribunal.data.program_export import read_export
    from tribunal.optimizers.program_loader import load_program

    monkeypatch.chdir(tmp_path)
    use_engine(monkeypatch, "tests.optimizers.toy_task:engine")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-planted-caps-0123456789")
    out = tmp_path / "tuned.json"
    result = CliRunner().invoke(app, [
        "optimize", "--program", "test-toy-equiv", "--optimizer", "random-search", "--budget", "4",
        "--train", "suite:0-12", "--dev", "suite:12-20", "--lm", MODEL, "--threads", "1", "--seed", "1",
        "--max-calls", "40", "--out", str(out), "--no-track"])
    assert result.exit_code == EXIT_CAPPED, (result.output, result.exception)
    assert "stopped by --max-calls 40" in result.output
    metadata = read_export(out)["metadata"]
    assert metadata["stopped_by"] == "--max-calls 40" and metadata["cap"]["calls_sent"] <= 40
    assert metadata["best_trial_score"] is not None and metadata["best_trial_score"] >= metadata["dev_score_untuned"]
    program, _ = load_program(out, expected_name="test-toy-equiv")
    assert program is not None

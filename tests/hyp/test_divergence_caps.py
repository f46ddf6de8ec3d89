"""``hyp divergence --max-calls N``: the LLM rule stops at the cap (at most N requests reach the loopback
peer), nothing is written or logged, the output says what was sent and what is left, exit status 5; a
rerun without the cap replays the finished calls from the response cache and completes."""

from __future__ import annotations

from typer.testing import CliRunner

from tests.hyp.constructed import depth_split_runs, store
from tests.support.dspy_cache import private_dspy_cache
from tests.support.equiv_fakes import equiv_loopback_server
from tribunal.cli import app
from tribunal.errors import EXIT_CAPPED

MODEL = "openai/gpt-4o-mini"
runner = CliRunner()


def _args(api_base: str, run_dir, *extra: str) -> list[str]:
    return ["hyp", "divergence", str(run_dir), "--rules", "llm", "--lm", MODEL, "--api-base", api_base,
            "--no-track", *extra]


def test_max_calls_stops_the_llm_rule_and_exits_5(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback-test")
    run_dir = store(tmp_path / "runs-dir", depth_split_runs("a", 1))
    with private_dspy_cache(tmp_path / "dspy-cache"), equiv_loopback_server(lambda a, b: True) as (api_base, state):
        capped = runner.invoke(app, _args(api_base, run_dir, "--max-calls", "5"), env={"COLUMNS": "250"})
        assert capped.exit_code == EXIT_CAPPED, capped.output
        first = len(state.hits)
        assert 0 < first <= 5
        assert "stopped by --max-calls 5" in capped.output and "pair judgments left" in capped.output
        assert f"{first} calls sent of --max-calls 5" in capped.output
        assert "resume" in capped.output and "tribunal hyp divergence" in capped.output
        assert not (run_dir / "divergence" / "divergence.tsv").exists()
        resumed = runner.invoke(app, _args(api_base, run_dir), env={"COLUMNS": "250"})
        assert resumed.exit_code == 0, resumed.output
    assert (run_dir / "divergence" / "divergence.tsv").is_file()
    assert len(state.hits) > first


def test_max_cost_on_an_unpriced_model_is_refused_before_any_call(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback-test")
    run_dir = store(tmp_path / "runs-dir", depth_split_runs("a", 1))
    with equiv_loopback_server(lambda a, b: True) as (api_base, state):
        args = ["hyp", "divergence", str(run_dir), "--rules", "llm", "--lm", "openai/unpriced-judge",
                "--api-base", api_base, "--no-track", "--max-cost", "0.01"]
        refused = runner.invoke(app, args)
    assert refused.exit_code != 0 and "has no price" in str(refused.exception)
    assert state.hits == [] and not (run_dir / "divergence" / "divergence.tsv").exists()

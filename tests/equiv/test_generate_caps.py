"""``equiv generate --max-calls N``: at most N requests reach the loopback peer, no perturbation starts once
the cap is reached, ``--out`` is not written, the output says what was sent and what is left, exit status 5;
the rerun without the cap replays the finished calls from the response cache."""

from __future__ import annotations

from typer.testing import CliRunner

from tests.support.dspy_cache import private_dspy_cache
from tests.support.loopback import loopback_server
from tests.tribunal.test_cli_options_equiv_hyp import one_original_suite, perturb  # noqa: F401 (a fixture)
from tribunal.cli import app
from tribunal.errors import EXIT_CAPPED

runner = CliRunner()


def test_max_calls_stops_the_generation_and_exits_5(tmp_path, monkeypatch, one_original_suite):  # noqa: F811
    suite, _ = one_original_suite
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback-test")
    out = tmp_path / "generated.jsonl"
    with private_dspy_cache(tmp_path / "dspy-cache"), loopback_server(respond_raw=perturb) as (api_base, state):
        args = ["equiv", "generate", "--lm", "openai/gpt-4o-mini", "--api-base", api_base, "--suite", str(suite),
                "--attempts", "1", "--out", str(out), "--no-track"]
        capped = runner.invoke(app, [*args, "--max-calls", "3"], env={"COLUMNS": "250"})
        assert capped.exit_code == EXIT_CAPPED, capped.output
        assert len(state.hits) == 3  # one attempt a kind: 3 of the 7 kinds, the other 4 not started
        assert "3 calls sent of --max-calls 3 (0 left)" in capped.output
        assert "4 perturbations left" in capped.output and "stopped by --max-calls 3" in capped.output
        assert "resume" in capped.output and "tribunal equiv generate" in capped.output
        assert not out.exists()
        resumed = runner.invoke(app, args, env={"COLUMNS": "250"})
        assert resumed.exit_code == 0, resumed.output
    assert len(state.hits) == 7 and out.is_file()  # the 3 finished calls came from the response cache


def test_max_cost_on_an_unpriced_model_is_refused_before_any_call(tmp_path, monkeypatch, one_original_suite):  # noqa: F811
    suite, _ = one_original_suite
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback-test")
    with loopback_server(respond_raw=perturb) as (api_base, state):
        refused = runner.invoke(app, ["equiv", "generate", "--lm", "openai/unpriced-writer", "--api-base", api_base,
                                      "--suite", str(suite), "--out", str(tmp_path / "g.jsonl"), "--no-track",
                                      "--max-cost", "0.01"])
    assert refused.exit_code != 0 and "has no price" in str(refused.exception)
    assert state.hits == [] and not (tmp_path / "g.jsonl").exists()

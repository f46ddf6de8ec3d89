"""``hyp run``: ``--estimate`` against the real run on the loopback peer (the range holds the actual calls
per role; the estimate sends nothing and makes no MLflow run), a ``--max-calls`` cap reached and then
resumed (no finished run paid again), ``summary.json`` read back rendering what the terminal showed, and the
per-role usage metrics in MLflow."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from typer.testing import CliRunner

from tests.hyp.workflow_lm import FIRST_LINES, answer
from tests.support import mqm_fakes
from tests.support.rendered import assert_shown_as_rendered
from tests.support.dspy_cache import private_dspy_cache
from tests.support.loopback import loopback_server
from tribunal import read_run_summary
from tribunal.cli import app
from tribunal.cli.hyp_run import print_run
from tribunal.errors import EXIT_CAPPED

MODEL = "openai/gpt-4o-mini"  # priced; reached through --api-base (the loopback peer)
runner = CliRunner()


@pytest.fixture
def peer(tmp_path, monkeypatch):
    monkeypatch.setattr(mqm_fakes, "_FIRST_LINES", FIRST_LINES)  # route the workflow's signatures
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback-test")
    calls: Counter = Counter()
    with private_dspy_cache(tmp_path / "dspy-cache"), \
            loopback_server(lambda role, inputs: answer(role, inputs, calls)) as (api_base, state):
        yield api_base, state


def _args(api_base: str, out, *extra: str) -> list[str]:
    return ["hyp", "run", "--lm", MODEL, "--api-base", api_base, "--depths", "0,1", "--reruns", "2",
            "--max-per-opening", "2", "--threads", "1", "--out", str(out), *extra]


def _roles(summary) -> Counter:
    roles: Counter = Counter()
    for key, usage in summary.roles.items():
        roles[key.split("/")[1]] += usage.calls
    return roles


def test_the_estimate_sends_nothing_and_its_range_holds_the_real_run(peer, tmp_path):
    api_base, state = peer
    estimated = runner.invoke(app, _args(api_base, tmp_path / "run", "--estimate", "--json",
                                         "--tracking-uri", f"sqlite:///{tmp_path / 'mlflow.db'}"))
    assert estimated.exit_code == 0, estimated.output
    assert state.hits == [] and not (tmp_path / "mlflow.db").exists() and not (tmp_path / "run").exists()
    estimate = json.loads(estimated.stdout.strip().splitlines()[-1])
    assert {"calls", "prompt_tokens", "completion_tokens", "usd", "wall_s", "by_role"} <= set(estimate)
    assert set(estimate["by_role"]) == {"proposer", "critic", "reviser", "engagement_judge"}
    assert estimate["usd"]["low"] > 0 and estimate["items"] == 4

    result = runner.invoke(app, _args(api_base, tmp_path / "run", "--no-track"))
    assert result.exit_code == 0, result.output
    summary = read_run_summary(tmp_path / "run")
    assert sum(r.paid for r in summary.roles.values()) == len(state.hits)  # the rest: the judge's cache hits
    assert estimate["calls"]["low"] <= summary.calls <= estimate["calls"]["high"], (estimate["calls"], summary.calls)
    for role, calls in _roles(summary).items():
        figure = estimate["by_role"][role]["calls"]
        assert figure["low"] <= calls <= figure["high"], (role, figure, calls)
    assert estimate["usd"]["low"] <= summary.spend_usd <= estimate["usd"]["high"]


def test_a_call_cap_stops_the_runs_and_the_resumed_job_pays_for_no_finished_run(peer, tmp_path):
    api_base, state = peer
    with private_dspy_cache(tmp_path / "clean-cache"):  # a clean job with a cache of its own, as the capped one
        clean = runner.invoke(app, _args(api_base, tmp_path / "clean", "--no-track"))
    assert clean.exit_code == 0, clean.output
    clean_calls = len(state.hits)

    capped = runner.invoke(app, _args(api_base, tmp_path / "run", "--no-track", "--max-calls", "6"))
    assert capped.exit_code == EXIT_CAPPED, capped.output
    first = read_run_summary(tmp_path / "run")
    first_calls = len(state.hits) - clean_calls
    assert first.stopped_by == "--max-calls 6" and first.cap.calls_sent == first_calls <= 6
    assert first.items.left > 0 and first.cap.resume.startswith("tribunal hyp run") and "resume" in capped.output

    resumed = runner.invoke(app, _args(api_base, tmp_path / "run", "--no-track"))
    assert resumed.exit_code == 0, resumed.output
    second = read_run_summary(tmp_path / "run")
    resumed_calls = len(state.hits) - clean_calls - first_calls
    assert second.stopped_by is None and second.items.left == 0 and second.items.scored == 4
    # the runs stored by the capped job are not run again; a run it cut short replays its calls from the cache
    assert first_calls + resumed_calls == clean_calls


def test_summary_json_renders_what_the_terminal_showed_and_mlflow_has_the_role_metrics(peer, tmp_path):
    import mlflow

    api_base, state = peer
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    result = runner.invoke(app, _args(api_base, tmp_path / "run", "--tracking-uri", uri), env={"COLUMNS": "150"})
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert {"calls", "spend_usd", "items", "signature", "mlflow_run_id", "stopped_by"} <= set(data)
    summary = read_run_summary(tmp_path / "run")
    assert_shown_as_rendered(result.output, print_run, summary)
    metrics = mlflow.MlflowClient(uri).get_run(summary.mlflow_run_id).data.metrics
    for role in ("proposer", "critic", "reviser", "engagement_judge"):
        assert metrics[f"role.{role}.calls"] == _roles(summary)[role] and metrics[f"role.{role}.usd"] > 0
    assert metrics["usage.prompt_tokens"] == summary.prompt_tokens and metrics["usage.usd"] > 0


def test_a_cost_cap_is_never_passed_and_the_job_resumes(peer, tmp_path):
    api_base, state = peer
    with private_dspy_cache(tmp_path / "clean-cache"):
        clean = runner.invoke(app, _args(api_base, tmp_path / "clean", "--no-track"))
    assert clean.exit_code == 0, clean.output
    cap = read_run_summary(tmp_path / "clean").spend_usd / 2
    capped = runner.invoke(app, _args(api_base, tmp_path / "run", "--no-track", "--max-cost", f"{cap:.8f}"))
    assert capped.exit_code == EXIT_CAPPED, capped.output
    first = read_run_summary(tmp_path / "run")
    assert first.stopped_by.startswith("--max-cost") and first.cap.spent_usd <= cap and first.items.left > 0
    resumed = runner.invoke(app, _args(api_base, tmp_path / "run", "--no-track"))
    assert resumed.exit_code == 0, resumed.output
    assert read_run_summary(tmp_path / "run").items.scored == 4

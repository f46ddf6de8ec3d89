"""``tribunal optimize --estimate`` against the real run's calls, and the run's ``summary.json`` and metrics.

The estimate's range must contain the calls the job then makes (on the loopback peer for labeled and
bootstrap, on the toy engine for random search), while the estimate itself sends nothing and makes
no MLflow run; the summary read back renders the lines the terminal showed.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from tests.support.injected_engine import use_engine
from tribunal.cli import app
from tribunal.eval.tracking.mlflow_run import TrackingSettings
from tribunal.optimizers.optimize_estimate import estimate_optimize
from tribunal.optimizers.optimize_job import OptimizeRequest

TRAIN, DEV = "mqm-ted:en-de:0-8", "mqm-ted:en-de:200-206"
KEY_ENV = "TRIBUNAL_LOOPBACK_KEY"


def _args(optimizer: str, api_base: str, out, *more: str) -> list[str]:
    return ["optimize", "--program", "gemba-mqm", "--optimizer", optimizer, "--budget", "2", "--train", TRAIN,
            "--dev", DEV, "--lm", "openai/gpt-4o-mini", "--api-base", api_base, "--api-key-env", KEY_ENV,
            "--threads", "2", "--no-cache", "--out", str(out), *more]


@pytest.mark.parametrize("optimizer", ["labeled", "bootstrap"])
def test_the_estimate_contains_the_calls_of_the_run_on_the_loopback_peer(optimizer, tmp_path, monkeypatch,
                                                                          ted_en_de, mlflow_uri):
    from mlflow.tracking import MlflowClient

    from tests.support.loopback import loopback_server
    from tests.support.mqm_fakes import synthetic_judge

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(KEY_ENV, "sk-loopback-optimize-estimate")
    runner = CliRunner()
    with loopback_server(synthetic_judge) as (api_base, state):
        shown = runner.invoke(app, [*_args(optimizer, api_base, tmp_path / "t.json"), "--estimate", "--json",
                                    "--tracking-uri", mlflow_uri])
        assert shown.exit_code == 0, (shown.output, shown.exception)
        assert state.hits == [] and not (tmp_path / "t.json").exists()  # nothing sent, nothing written
        assert not MlflowClient(tracking_uri=mlflow_uri).search_runs(
            [e.experiment_id for e in MlflowClient(tracking_uri=mlflow_uri).search_experiments()])
        estimate = json.loads(shown.stdout)
        ran = runner.invoke(app, [*_args(optimizer, api_base, tmp_path / "t.json"), "--tracking-uri", mlflow_uri])
        assert ran.exit_code == 0, (ran.output, ran.exception)
        sent = len(state.hits)
    for key in ("calls", "prompt_tokens", "completion_tokens", "usd", "wall_s"):
        assert set(estimate[key]) == {"low", "high"}
    assert estimate["calls"]["low"] <= sent <= estimate["calls"]["high"], (estimate["calls"], sent)
    assert set(estimate["by_role"]) == {"task"} and estimate["usd"]["high"] > 0
    if optimizer == "labeled":  # dev judged twice, one call an item, no train calls
        assert estimate["calls"] == {"low": 12, "high": 12} and sent == 12
    else:
        assert estimate["program_runs"]["task"] == {"low": 14, "high": 20}

    from tribunal import read_run_summary
    from tribunal.cli.optimize_report import summary_lines

    summary = read_run_summary(tmp_path)
    assert summary.command == "optimize" and summary.calls == sent and summary.items.total == 6
    assert summary.mlflow_run_id and summary.spend_usd is not None and summary.spend_usd > 0
    printed = [" ".join(line.split()) for line in ran.output.splitlines() if line.strip()]
    rendered = [" ".join(line.split()) for line in summary_lines(summary)]
    assert rendered == printed[-len(rendered):]  # read back == shown
    metrics = MlflowClient(tracking_uri=mlflow_uri).get_run(summary.mlflow_run_id).data.metrics
    assert metrics["role.task.calls"] == sent and metrics["role.task.prompt_tokens"] == summary.prompt_tokens
    assert metrics["usage.usd"] == pytest.approx(summary.spend_usd, rel=1e-6) and metrics["role.task.usd"] > 0


def test_the_estimate_contains_the_calls_of_random_search(tmp_path, monkeypatch):
    from tribunal.optimizers.optimize_job import run_optimize

    monkeypatch.chdir(tmp_path)
    use_engine(monkeypatch, "tests.optimizers.toy_task:engine")
    request = OptimizeRequest(program="test-toy-equiv", optimizer="random-search", budget=3, train="suite:0-12",
                              dev="suite:12-20", lm="toy/task", teacher_lm="toy/teacher", threads=1,
                              out=tmp_path / "rs.json")
    estimate = estimate_optimize(request, TrackingSettings(enabled=False)).as_json()
    result = run_optimize(request, TrackingSettings(enabled=False))
    actual = result.run_summary.calls
    assert estimate["calls"]["low"] <= actual <= estimate["calls"]["high"], (estimate["calls"], actual)
    assert set(estimate["by_role"]) == {"task", "teacher"} and estimate["usd"] is None  # toy models are unpriced
    roles = result.run_summary.roles
    teacher = roles["search/teacher"].calls
    assert estimate["by_role"]["teacher"]["calls"]["low"] <= teacher <= estimate["by_role"]["teacher"]["calls"]["high"]
    assert roles["dev/task"].calls == 2 * 8  # untuned and tuned, one call an item
    assert estimate["by_role"]["task"]["calls"] == {"low": (3 + 3 + 2) * 8, "high": (3 + 3 + 2) * 8}


def test_a_rejected_candidate_is_in_the_summary_and_its_rendering(tmp_path, monkeypatch):
    """The summary says the tuned candidate was not kept, with both programs' dev counts, and renders it."""
    from tribunal import read_run_summary
    from tribunal.cli.optimize_report import summary_lines

    monkeypatch.chdir(tmp_path)
    use_engine(monkeypatch, "tests.optimizers.test_dev_reliability:breaking_engine")
    result = CliRunner().invoke(app, [
        "optimize", "--program", "test-toy-equiv", "--optimizer", "labeled", "--budget", "2", "--train", "suite:0-8",
        "--dev", "suite:8-24", "--lm", "toy/task", "--threads", "1", "--no-track", "--out", str(tmp_path / "t.json")])
    assert result.exit_code == 0, result.output
    summary = read_run_summary(tmp_path / "summary.json")
    rejected = summary.details["dev"]["rejected"]
    assert rejected["unscored"] == 8 and rejected["items"] == 16 and summary.details["rejected_reason"]
    assert summary.items.total == 16 and summary.items.unscored == 0  # the untuned program, exported
    assert summary.spend_usd is None and summary.mlflow_run_id is None  # toy models: no price; --no-track
    text = " ".join(result.output.split())
    assert all(" ".join(line.split()) in text for line in summary_lines(summary))

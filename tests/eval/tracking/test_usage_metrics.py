"""Cost where people look: a tracked loopback run logs spend and tokens in total and per role, its LM spans
carry MLflow's token-usage attribute and the trace info adds them up; ``--estimate`` makes no run and, once a
tracked run exists, takes its measured answer lengths as the low end."""

from __future__ import annotations

import json
import shutil
import uuid

import mlflow
import pytest

from tests.eval.mt.helpers import KEY_ENV, SECRET, loopback_config
from tests.support.cli import run_cli
from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tribunal.eval.estimate.mt_estimate import estimate_evaluation
from tribunal.eval.mt.job import run_evaluation
from tribunal.eval.tracking.mlflow_run import TrackingSettings, mlflow_client
from tribunal.eval.tracking.usage_metrics import usage_metrics
from tribunal.programs.pricing import token_rates

MODEL = "openai/gpt-4o-mini"


def test_usage_metrics_sum_the_stages_of_each_role_and_price_them():
    usage = {"calls": {"stage1": 2, "stage1/judge": 1, "stage3/judge": 1, "stage1/gemba": 1},
             "prompt_tokens": {"stage1/judge": 10, "stage3/judge": 5, "stage1/gemba": 7},
             "completion_tokens": {"stage1/judge": 3, "stage3/judge": 2, "stage1/gemba": 1}}
    metrics = usage_metrics(usage, MODEL, {"gemba": "openai/not-a-priced-model"})
    assert metrics["role.judge.calls"] == 2 and metrics["role.judge.prompt_tokens"] == 15
    assert metrics["role.judge.completion_tokens"] == 5 and metrics["usage.prompt_tokens"] == 22
    rate_in, rate_out = token_rates(MODEL)
    assert metrics["role.judge.usd"] == pytest.approx(15 * rate_in + 5 * rate_out)
    assert "role.gemba.usd" not in metrics and "usage.usd" not in metrics  # unpriced: unknown, never 0


def _config(api_base, tmp_path):
    config = loopback_config(api_base, tmp_path / "out", program="gemba-mqm", limit=4)
    return config.model_copy(update={"lm": config.lm.model_copy(update={"model": MODEL})})


def test_a_tracked_run_logs_spend_and_tokens_per_role_and_on_its_lm_spans(tmp_path, monkeypatch, empty_sqlite_store):
    monkeypatch.setenv(KEY_ENV, SECRET)
    shutil.copyfile(empty_sqlite_store, tmp_path / "mlflow.db")
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    settings = TrackingSettings(uri=uri, experiment=f"usage-{uuid.uuid4().hex[:8]}")
    with loopback_server(synthetic_judge) as (api_base, state):
        config = _config(api_base, tmp_path)
        before = estimate_evaluation(config, settings)
        assert state.hits == [] and mlflow_client(settings).get_experiment_by_name(settings.experiment) is None
        result = run_evaluation(config, settings)
        after = estimate_evaluation(config.model_copy(update={"out": tmp_path / "fresh"}), settings)
    metrics = mlflow_client(settings).get_run(result.run_id).data.metrics
    summary = result.summary
    assert metrics["role.gemba.calls"] == summary["lm_calls"] == 4
    assert metrics["role.gemba.prompt_tokens"] == metrics["usage.prompt_tokens"] == summary["prompt_tokens"] > 0
    assert metrics["role.gemba.completion_tokens"] == summary["completion_tokens"] > 0
    assert metrics["usage.usd"] == pytest.approx(summary["cost_usd"], abs=1e-6) and metrics["usage.usd"] > 0
    mlflow.set_tracking_uri(uri)
    traces = mlflow.search_traces(run_id=result.run_id, return_type="list")
    assert len(traces) == 4
    for trace in traces:
        llm = [s for s in trace.data.spans if s.span_type == "LLM"]
        usage = [s.attributes["mlflow.chat.tokenUsage"] for s in llm]
        assert usage and all(u["input_tokens"] > 0 and u["total_tokens"] == u["input_tokens"] + u["output_tokens"]
                             for u in usage)
        assert trace.info.token_usage["input_tokens"] == sum(u["input_tokens"] for u in usage)
        assert trace.info.token_usage["output_tokens"] == sum(u["output_tokens"] for u in usage)
    # the estimate's low end: the measured answers of that run (4 calls), not the shortest valid answer
    assert before.measured_run is None and after.measured_run == result.run_id
    assert after.by_role["gemba"].completion_tokens.low == pytest.approx(summary["completion_tokens"])


def test_estimate_json_on_the_command_line_has_the_schema_and_creates_no_run(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(KEY_ENV, SECRET)
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    with loopback_server(synthetic_judge) as (api_base, state):
        outcome = run_cli(capsys, "mt", "evaluate", "--lp", "zh-en", "--lm", MODEL, "--api-base", api_base,
                          "--api-key-env", KEY_ENV, "--program", "mmad", "--limit", "2", "--demos", "0",
                          "--out", tmp_path / "out", "--tracking-uri", uri, "--estimate", "--json")
    assert outcome.status == 0, outcome.err
    assert state.hits == [] and not (tmp_path / "mlflow.db").exists() and not (tmp_path / "out").exists()
    document = json.loads(outcome.out)
    figures = ("calls", "prompt_tokens", "completion_tokens", "usd", "wall_s")
    for scope in (document, *document["by_role"].values()):
        for name in figures:
            assert set(scope[name]) == {"low", "high"} and scope[name]["low"] <= scope[name]["high"], (name, scope)
    assert document["calls"]["low"] == 2 * 4 and document["calls"]["high"] == 2 * (4 + 4 * 3 * 3 + 1)
    assert {"accuracy", "defender", "consensus", "judge"} <= set(document["by_role"])

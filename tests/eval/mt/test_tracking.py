"""An MT run with tracking on: what reaches MLflow, and that the API key does not."""

from __future__ import annotations

from pathlib import Path

from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tribunal.eval.mt.job import run_evaluation
from tribunal.eval.tracking.mlflow_run import TrackingSettings, mlflow_client

from .helpers import KEY_ENV, SECRET, loopback_config


def files_containing(root: Path, needle: bytes) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


def test_run_is_tracked_with_cost_scores_plots_and_no_secret(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "cache"))
    store = tmp_path / "store"
    settings = TrackingSettings(uri=f"sqlite:///{store}/mlflow.db", experiment="mt")
    store.mkdir()
    with loopback_server(synthetic_judge) as (api_base, state):
        result = run_evaluation(loopback_config(api_base, tmp_path / "out", limit=24, rated_only=True), settings)
    client = mlflow_client(settings)
    run = client.get_run(result.run_id)
    params, metrics = run.data.params, run.data.metrics
    assert params["program"] == "mmad" and params["mmad.strategy"] == "consensus" and params["lm"] == "openai/loopback-judge"
    assert run.data.tags["tribunal.signature"] == result.signature and "|data:wmt23/zh-en@" in result.signature
    assert metrics["lm_calls"] == len(state.hits) == result.summary["lm_calls"]
    assert metrics["scored"] + metrics["unscored"] == metrics["items"] == 24
    assert {"meta.seg_pearson", "span.char_f1", "span.mpp_f", "span.wmt25_f", "calls.stage1",
            "distribution.wasserstein", "error_free.mcc", "error_free.mcc_low", "error_free.f1_high",
            "error_free.cells"} <= set(metrics)  # zh-en's rating files give the error-free gold
    assert metrics["error_free.cells"] == result.summary["error_free"]["cells"] > 0
    artifacts = {a.path for a in client.list_artifacts(run.info.run_id)}
    assert {"outputs", "summary.json", "distribution.png", "distribution.tsv", "judge_vs_human.png"} <= artifacts
    # debates by round are logged as steps, so `tribunal runs compare --step-metric` can plot them
    history = client.get_metric_history(run.info.run_id, "debate.consensus_share")
    assert [m.step for m in sorted(history, key=lambda m: m.step)] == [1, 2, 3]
    assert sorted(history, key=lambda m: m.step)[-1].value <= 1.0
    assert files_containing(store, SECRET.encode()) == []
    assert files_containing(tmp_path / "out", SECRET.encode()) == []

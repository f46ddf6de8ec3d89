"""`tribunal runs list|compare` on a store with runs of two strategies and two rubric variants."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tribunal.eval.tracking.mlflow_run import TrackingSettings, tracked_run
from tribunal.eval.tracking.runs_view import compare, find_runs


@pytest.fixture
def store(tmp_path):
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    ids = {}
    for strategy, calls, acc in (("consensus", 700, 0.52), ("deliberation", 1100, 0.55)):
        with tracked_run(TrackingSettings(uri=uri, experiment="mt"), f"mmad-{strategy}",
                         {"program": "mmad", "strategy": strategy, "lm": "openai/x"}) as run:
            run.log_metrics({"lm_calls": calls, "seg_acc_t": acc})
            for round_, agreement in enumerate((0.4, 0.6, 0.7)[: 2 if strategy == "consensus" else 3], 1):
                run.log_metrics({"consensus_rate": agreement}, step=round_)
            ids[strategy] = run.run_id
    for rubric, different in (("full", 0.9), ("none", 0.6)):
        with tracked_run(TrackingSettings(uri=uri, experiment="equiv"), f"audit-{rubric}",
                         {"rule": "llm", "rubric": rubric}) as run:
            run.log_metrics({"share_different/first-step-swapped": different, "lm_calls": 240})
            ids[rubric] = run.run_id
    return uri, ids


def test_compare_shows_differing_params_metrics_and_cost(store):
    uri, _ = store
    settings = TrackingSettings(uri=uri)
    view = compare(find_runs(settings, "mt"))
    assert list(view.params.index) == ["strategy"]  # program and lm are equal, so not shown
    assert sorted(view.params.loc["strategy"]) == ["consensus", "deliberation"]
    assert list(view.cost.index) == ["lm_calls"]
    assert sorted(view.metrics.loc["seg_acc_t"]) == [0.52, 0.55]
    rubric_view = compare(find_runs(settings, "equiv", "params.rule = 'llm'"))
    assert sorted(rubric_view.params.loc["rubric"]) == ["full", "none"]


def test_cli_list_and_compare_with_plots(store, tmp_path):
    uri, ids = store
    listed = subprocess.run([sys.executable, "-m", "tribunal", "runs", "list", "--tracking-uri", uri],
                            capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0 and "4 run(s)" in listed.stdout and "audit-full" in listed.stdout
    out = tmp_path / "plots"
    result = subprocess.run(
        [sys.executable, "-m", "tribunal", "runs", "compare", ids["consensus"], ids["deliberation"],
         "--quality", "seg_acc_t", "--step-metric", "consensus_rate", "--out", str(out), "--tracking-uri", uri],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "params that differ" in result.stdout and "deliberation" in result.stdout
    assert (out / "cost_vs_quality.png").stat().st_size > 1000 and (out / "by_step.png").is_file()
    assert "comparison logged as run" in result.stdout


def test_bad_filter_and_single_run_are_clear_errors(store):
    uri, ids = store
    bad = subprocess.run([sys.executable, "-m", "tribunal", "runs", "list", "--filter", "params.x ==== 1",
                          "--tracking-uri", uri], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "bad --filter" in bad.stderr
    one = subprocess.run([sys.executable, "-m", "tribunal", "runs", "compare", ids["full"], "--tracking-uri", uri],
                         capture_output=True, text=True, timeout=120)
    assert one.returncode == 2 and "need at least two runs" in one.stderr

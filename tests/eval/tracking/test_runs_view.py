"""`tribunal runs list|compare` on a store with runs of two strategies and two rubric variants."""

from __future__ import annotations

import os
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
    assert (out / "cost_vs_quality.png").stat().st_size > 1000 and (out / "by_step_consensus_rate.png").is_file()
    assert "comparison logged as run" in result.stdout


def _squeezed(text: str) -> str:
    return "".join(text.split())


def test_list_at_100_columns_shows_every_run_and_every_value(store, tmp_path):
    from tribunal.eval.tracking.runs_view import runs_table

    uri, _ = store
    with tracked_run(TrackingSettings(uri=uri, experiment="mt"),
                     "M-MAD interactive-review r3 | gpt-4o-mini-2024-07-18 | wmt23 zh-en x2000",
                     signature="prog:mmad|strategy:interactive-review|rounds:3|topic:severity|ablate:none|"
                               "lm:openai/gpt-4o-mini-2024-07-18|demos:2|lp:zh-en|data:wmt23/zh-en@3f2a9c1b0d1e|v:0.1.0") as run:
        run.log_metrics({"meta.seg_acc_t": 0.5321, "lm_calls": 14000})
    listed = subprocess.run([sys.executable, "-m", "tribunal", "runs", "list", "--tracking-uri", uri],
                            capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "100"})
    assert listed.returncode == 0, listed.stderr
    assert max(len(line) for line in listed.stdout.splitlines()) <= 100
    table = runs_table(find_runs(TrackingSettings(uri=uri)))
    assert len(table) == 5
    shown = _squeezed(listed.stdout)
    for value in table.drop(columns=["parent"]).to_numpy().ravel():
        assert _squeezed(str(value)) in shown, value


def test_compare_plots_by_default(store, tmp_path):
    uri, ids = store
    out = tmp_path / "plots"
    result = subprocess.run([sys.executable, "-m", "tribunal", "runs", "compare", ids["consensus"], ids["deliberation"],
                             "--out", str(out), "--tracking-uri", uri, "--no-track"],
                            capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "100"})
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in out.iterdir()) == ["by_step_consensus_rate.png", "cost_vs_quality.png",
                                                      "key_metrics.png"]
    assert max(len(line) for line in result.stdout.splitlines()) <= 100


def test_bad_filter_and_single_run_are_clear_errors(store):
    uri, ids = store
    bad = subprocess.run([sys.executable, "-m", "tribunal", "runs", "list", "--filter", "params.x ==== 1",
                          "--tracking-uri", uri], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "bad --filter" in bad.stderr
    one = subprocess.run([sys.executable, "-m", "tribunal", "runs", "compare", ids["full"], "--tracking-uri", uri],
                         capture_output=True, text=True, timeout=120)
    assert one.returncode == 2 and "need at least two runs" in one.stderr


def test_compare_without_run_ids_takes_the_runs_the_filter_matches(store, tmp_path):
    uri, _ = store
    common = ["--tracking-uri", uri, "--no-track", "--out", str(tmp_path / "plots")]
    llm = subprocess.run([sys.executable, "-m", "tribunal", "runs", "compare", "--experiment", "equiv",
                          "--filter", "params.rubric != 'none'", *common],
                         capture_output=True, text=True, timeout=120)
    assert llm.returncode == 2 and "need at least two runs" in llm.stderr, "only the full-rubric run matches"
    both = subprocess.run([sys.executable, "-m", "tribunal", "runs", "compare", "--experiment", "equiv",
                           "--filter", "params.rule = 'llm'", *common],
                          capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "200"})
    assert both.returncode == 0, both.stderr
    assert "audit-full" in both.stdout and "audit-none" in both.stdout and "mmad-" not in both.stdout

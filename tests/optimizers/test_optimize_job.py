"""The optimize job per optimizer family: trials become nested runs, scores and the program are logged."""

from __future__ import annotations

import json

import pytest

from tests.support.injected_engine import use_engine
from tribunal.eval.tracking.mlflow_run import TrackingSettings
from tribunal.optimizers.optimize_job import OptimizeRequest, run_optimize

# labeled: one candidate (the compiled program is the trial); simba: candidates logged after compile;
# gepa: its validation passes go through dspy.Evaluate and are logged live by the callback.
CASES = {"labeled": (2, "compiled"), "simba": (1, "candidate_programs"), "gepa": (30, "evaluate")}


@pytest.mark.parametrize("optimizer", list(CASES))
def test_trials_nested_under_the_parent_run(optimizer, tmp_path, monkeypatch, mlflow_uri):
    from mlflow.tracking import MlflowClient

    budget, source = CASES[optimizer]
    use_engine(monkeypatch, "tests.optimizers.toy_task:engine")
    request = OptimizeRequest(program="test-toy-equiv", optimizer=optimizer, train="suite:0-8", dev="suite:8-16",
                              lm="toy/task", budget=budget, threads=1, out=tmp_path / "tuned.json")
    result = run_optimize(request, TrackingSettings(uri=mlflow_uri))
    assert result.tuned.score > result.untuned.score and result.tuned.unscored == 0

    client = MlflowClient(tracking_uri=mlflow_uri)
    parent = client.get_run(result.run_id)
    params, metrics = parent.data.params, parent.data.metrics
    assert params["optimizer"] == optimizer and params["seed"] == "0" and params["train"] == "suite:0-8"
    assert params["lm.task"] == "toy/task" and (params.get("lm.prompt") == "toy/task") == (optimizer != "labeled")
    assert metrics["dev_untuned_score"] == pytest.approx(result.untuned.score)
    assert metrics["dev_tuned_unscored"] == 0.0 and metrics["trials"] == result.trials
    assert metrics["lm_calls"] >= 16 and metrics["lm_failed_calls"] == 0  # at least the two dev passes of 8
    assert parent.data.tags["tribunal.signature"] == result.signature
    children = client.search_runs([parent.info.experiment_id], f"tags.mlflow.parentRunId = '{result.run_id}'")
    assert len(children) == result.trials >= 1
    assert {c.data.params["source"] for c in children} == {source}
    logged = client.download_artifacts(result.run_id, "program/program.json", str(tmp_path / "dl"))
    with open(logged, encoding="utf-8") as handle:
        document = json.load(handle)
    assert document == json.loads(result.out.read_text()) and document["metadata"]["run_id"] == result.run_id


def test_an_exported_program_can_be_tuned_again(tmp_path, monkeypatch):
    from tribunal.data.program_export import read_export

    use_engine(monkeypatch, "tests.optimizers.toy_task:engine")
    first = run_optimize(OptimizeRequest(program="test-toy-equiv", optimizer="labeled", train="suite:0-8",
                                         dev="suite:8-16", lm="toy/task", budget=2, out=tmp_path / "first.json"),
                         TrackingSettings(enabled=False))
    assert first.run_id is None and first.tuned.score == 1.0
    second = run_optimize(OptimizeRequest(program=str(first.out), optimizer="bootstrap", train="suite:16-24",
                                          dev="suite:8-16", lm="toy/task", budget=1, out=tmp_path / "second.json"),
                          TrackingSettings(enabled=False))
    assert second.untuned.score == 1.0  # the loaded program kept its tuned demos
    document = read_export(second.out)
    assert document["program"]["name"] == "test-toy-equiv" and document["metadata"]["optimizer"] == "bootstrap"
    assert "prog:test-toy-equiv@" in second.signature  # the export it started from is pinned

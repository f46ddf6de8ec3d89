"""An optimize run in MLflow: its data slices as datasets, the tuned instructions and demos in the
prompt registry (linked to the run), on SQLite and on a real server."""

from __future__ import annotations

import uuid

import mlflow
import pytest

from tests.support.injected_engine import use_engine
from tests.optimizers.toy_task import KEY_PHRASE
from tribunal.eval.tracking.mlflow_run import TrackingSettings, mlflow_client
from tribunal.optimizers.optimize_job import OptimizeRequest, run_optimize


@pytest.fixture(autouse=True)
def _toy_program():
    from tests.optimizers.toy_task import ToyJudge
    from tribunal.programs.registry import register_program

    register_program("test-toy-equiv", ToyJudge)


def test_the_prompt_registry_holds_the_tuned_instructions(tmp_path, monkeypatch, store_uri):
    use_engine(monkeypatch, "tests.optimizers.toy_task:engine")
    settings = TrackingSettings(uri=store_uri, experiment=f"optimize-{uuid.uuid4().hex[:8]}")
    request = OptimizeRequest(program="test-toy-equiv", optimizer="simba", train="suite:0-8", dev="suite:8-16",
                              lm="toy/task", budget=1, threads=1, out=tmp_path / "tuned.json")
    result = run_optimize(request, settings)
    client = mlflow_client(settings)
    run = client.get_run(result.run_id)
    assert run.info.run_name == "optimize test-toy-equiv | simba | task | suite:0-8"
    inputs = {d.dataset.name: d for d in run.inputs.dataset_inputs}
    assert set(inputs) == {"suite:0-8", "suite:8-16"}
    assert {t.key: t.value for t in inputs["suite:0-8"].tags}["mlflow.data.context"] == "training"
    linked = run.data.tags["tribunal.prompts"].split(",")
    assert any(uri.startswith("prompts:/tribunal.test-toy-equiv.judge/") for uri in linked)
    name, version = next(u for u in linked if "test-toy-equiv" in u).removeprefix("prompts:/").split("/")
    prompt = client.get_prompt_version(name, version)
    system = prompt.template[0]["content"]
    assert KEY_PHRASE in system  # the instruction the optimizer found
    assert prompt.tags["optimizer"] == "simba" and prompt.tags["run_id"] == result.run_id
    mlflow.set_tracking_uri(store_uri)
    datasets = mlflow.genai.datasets.search_datasets(experiment_ids=[run.info.experiment_id])
    assert {d.name.split("@")[0] for d in datasets} == {"suite-0-8", "suite-8-16"}

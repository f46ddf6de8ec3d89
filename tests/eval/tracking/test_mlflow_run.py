import pytest

from tribunal.eval.tracking.mlflow_run import TrackingSettings, mlflow_client, tracked_run


@pytest.fixture
def settings(tmp_path):
    return TrackingSettings(uri=f"sqlite:///{tmp_path}/mlflow.db", experiment="test")


def test_run_logs_params_metrics_tags_and_artifacts(settings, monkeypatch):
    monkeypatch.setenv("MY_API_KEY", "secret-value-123456")
    with tracked_run(settings, "unit", {"lm": "x", "api_key": "leak"}, {"t": "1"}, "prog:x|v:0") as run:
        run.log_metrics({"acc": 0.5, "missing": float("nan"), "none": None})
        run.log_text("the key is secret-value-123456", "notes.txt")
        with run.child("nested", {"rubric": "full"}) as child:
            child.log_metrics({"share": 1.0})
    client = mlflow_client(settings)
    stored = client.get_run(run.run_id)
    assert stored.data.params == {"lm": "x", "api_key": "***"}
    assert stored.data.metrics == {"acc": 0.5}
    assert stored.data.tags["tribunal.signature"] == "prog:x|v:0"
    assert stored.info.status == "FINISHED"
    nested = client.get_run(child.run_id)
    assert nested.data.tags["mlflow.parentRunId"] == run.run_id
    text = client.download_artifacts(run.run_id, "notes.txt")
    assert open(text).read() == "the key is ***"


def test_failed_run_is_marked_failed(settings):
    with pytest.raises(RuntimeError):
        with tracked_run(settings, "boom") as run:
            raise RuntimeError("x")
    assert mlflow_client(settings).get_run(run.run_id).info.status == "FAILED"


def test_disabled_tracking_writes_nothing(tmp_path):
    settings = TrackingSettings(enabled=False, uri=f"sqlite:///{tmp_path}/mlflow.db")
    with tracked_run(settings, "off", {"a": 1}) as run:
        run.log_metrics({"x": 1.0})
        assert run.run_id is None
    assert not (tmp_path / "mlflow.db").exists()

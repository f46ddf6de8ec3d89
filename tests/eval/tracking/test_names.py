"""MLflow names built from reasons, names and user text: valid, redacted, and runs ended honestly."""

import pytest

from tribunal.eval.tracking.mlflow_run import TrackingSettings, mlflow_client, tracked_run
from tribunal.eval.tracking.names import entity_key, run_name, slug

SECRET = "sk-names-test-0123456789abcdef"


def test_keys_become_valid_mlflow_names(monkeypatch):
    from mlflow.utils.validation import _validate_metric_name

    monkeypatch.setenv("SOME_API_KEY", SECRET)
    for raw in ("unscored.server error (retries exhausted)", "a//b/../c", "/lead", "x" * 300, "", "ok/name:1",
                f"unscored.{SECRET}"):
        key = entity_key(raw)
        _validate_metric_name(key)  # raises on anything MLflow refuses
        assert SECRET not in key and len(key) <= 250
    assert entity_key("unscored.server error (retries exhausted)") == "unscored.server error _retries exhausted_"
    assert slug("server error (retries exhausted)") == "server_error_retries_exhausted"


def test_run_names_are_redacted(monkeypatch):
    monkeypatch.setenv("SOME_API_KEY", SECRET)
    assert run_name(f"mt-evaluate M-{SECRET}\nzh-en") == "mt-evaluate M-*** zh-en"


@pytest.fixture(scope="module")
def settings(tmp_path_factory):
    """One store for the module (creating one costs seconds)."""
    return TrackingSettings(uri=f"sqlite:///{tmp_path_factory.mktemp('names')}/mlflow.db", experiment="names")


def test_a_run_with_odd_metric_names_and_a_secret_in_its_name_is_finished(settings, monkeypatch):
    monkeypatch.setenv("SOME_API_KEY", SECRET)
    with tracked_run(settings, f"judge {SECRET}", {"why (odd)": "x"}) as run:
        run.log_metrics({"unscored.rate limited (retries exhausted)": 3.0, "unscored.timeout (retries exhausted)": 1.0})
    stored = mlflow_client(settings).get_run(run.run_id)
    assert stored.info.status == "FINISHED" and stored.info.run_name == "judge ***"
    assert stored.data.metrics == {"unscored.rate limited _retries exhausted_": 3.0,
                                   "unscored.timeout _retries exhausted_": 1.0}
    assert stored.data.params == {"why _odd_": "x"}


def test_a_run_stopped_by_ctrl_c_is_killed_not_failed(settings):
    with pytest.raises(KeyboardInterrupt):
        with tracked_run(settings, "stopped") as run:
            raise KeyboardInterrupt
    assert mlflow_client(settings).get_run(run.run_id).info.status == "KILLED"

"""Make ``tests.support`` importable (pytest's importlib mode does not put the repo on sys.path)."""

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


import pytest  # noqa: E402


@pytest.fixture(scope="session")
def _empty_mlflow_store(tmp_path_factory):
    """An MLflow SQLite store with its schema created once (creating one costs seconds)."""
    from mlflow.tracking import MlflowClient

    path = tmp_path_factory.mktemp("mt-store-template") / "mlflow.db"
    MlflowClient(tracking_uri=f"sqlite:///{path}").search_experiments()
    return path


@pytest.fixture
def mlflow_store(tmp_path, _empty_mlflow_store):
    """``sqlite:///...`` of a fresh store in this test's folder (a copy of the empty template)."""
    import shutil

    store = tmp_path / "store"
    store.mkdir()
    shutil.copyfile(_empty_mlflow_store, store / "mlflow.db")
    return f"sqlite:///{store / 'mlflow.db'}"

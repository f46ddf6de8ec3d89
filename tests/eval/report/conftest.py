"""Make ``tests.support`` importable (pytest's importlib mode does not put the repo on sys.path)."""

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


import pytest  # noqa: E402


@pytest.fixture
def mlflow_store(tmp_path, empty_sqlite_store):
    """``sqlite:///...`` of a fresh store in this test's folder (a copy of the empty template)."""
    import shutil

    store = tmp_path / "store"
    store.mkdir()
    shutil.copyfile(empty_sqlite_store, store / "mlflow.db")
    return f"sqlite:///{store / 'mlflow.db'}"

"""Stores the tracking tests run against: the SQLite default and a real ``mlflow server`` over HTTP."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


@pytest.fixture(scope="session")
def server_uri(tmp_path_factory):
    """One ``mlflow server`` on 127.0.0.1 for the whole session (it takes a while to start)."""
    from tests.support.mlflow_server import mlflow_server

    with mlflow_server(tmp_path_factory.mktemp("mlflow-server")) as url:
        yield url


@pytest.fixture(params=["sqlite", "server"])
def store_uri(request, tmp_path):
    """Each test runs against a fresh SQLite store (the default) and against the shared server."""
    if request.param == "sqlite":
        import shutil

        shutil.copyfile(request.getfixturevalue("empty_sqlite_store"), tmp_path / "mlflow.db")
        return f"sqlite:///{tmp_path}/mlflow.db"
    return request.getfixturevalue("server_uri")

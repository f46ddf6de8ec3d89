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


@pytest.fixture(scope="session")
def postgres_server_uri(tmp_path_factory):
    """``mlflow server`` on a PostgreSQL database (Debian's postgresql on loopback), local artifacts.

    Skipped, with the reason, where PostgreSQL cannot start here; under CI (``CI`` or
    ``TRIBUNAL_REQUIRE_POSTGRES`` set, as ``.ci/run`` does) that fails instead.
    """
    import os

    from tests.support.mlflow_server import mlflow_server
    from tests.support.postgres import postgres_server, unavailable

    reason = unavailable()
    if reason:
        if os.environ.get("CI") or os.environ.get("TRIBUNAL_REQUIRE_POSTGRES"):
            pytest.fail(f"PostgreSQL is needed under CI: {reason}")
        pytest.skip(f"no PostgreSQL server: {reason}")
    with postgres_server() as database, mlflow_server(tmp_path_factory.mktemp("mlflow-postgres"),
                                                      backend_store_uri=database) as url:
        yield url

"""A throwaway PostgreSQL server on loopback for the team-server tests (Debian's ``postgresql`` package).

``initdb`` into a fresh temporary folder, ``pg_ctl start`` on a free port of 127.0.0.1 with its unix
socket in that folder, one database ``mlflow`` owned by role ``mlflow`` (trust authentication: the
server only listens on loopback and lives for one test session), stopped by ``pg_ctl stop`` and
deleted afterwards. PostgreSQL refuses to run as root: as root, the server runs as the ``postgres``
user the package creates (``runuser``). :func:`unavailable` says why it cannot start here, if it
cannot (the tests skip with that reason; CI installs the package, so there it never skips).
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Iterator

from tests.support.mlflow_server import free_port

SERVICE_USER = "postgres"
ROLE = DATABASE = "mlflow"


def _bindir() -> Path | None:
    """Debian's ``/usr/lib/postgresql/<version>/bin`` (the newest), else the folder of ``initdb`` on PATH."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).resolve().parent if initdb else None


def unavailable() -> str | None:
    """Why a PostgreSQL server cannot be started here (None if it can)."""
    if _bindir() is None:
        return "PostgreSQL is not installed (apt-get install postgresql)"
    if os.geteuid() == 0:
        import pwd

        try:
            pwd.getpwnam(SERVICE_USER)
        except KeyError:
            return f"running as root and there is no {SERVICE_USER!r} user to run PostgreSQL as"
        if shutil.which("runuser") is None:
            return "running as root and runuser is missing"
    try:
        import psycopg  # noqa: F401  (the driver SQLAlchemy 2.1 uses for postgresql:// URLs)
    except ImportError:
        return "psycopg is not installed (pip install 'psycopg[binary]', in the test extra)"
    return None


def _as_service(command: list[str]) -> list[str]:
    return ["runuser", "-u", SERVICE_USER, "--", *command] if os.geteuid() == 0 else command


def _run(command: list[str], timeout: float) -> None:
    done = subprocess.run(_as_service(command), capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"{Path(command[0]).name} failed ({done.returncode}): {(done.stderr or done.stdout)[-1500:]}")


@contextlib.contextmanager
def postgres_server(timeout: float = 120.0) -> Iterator[str]:
    """The SQLAlchemy URL (``postgresql://mlflow@127.0.0.1:PORT/mlflow``) of a running server."""
    reason = unavailable()
    if reason:
        raise RuntimeError(reason)
    bindir = _bindir()
    # Not under pytest's tmp_path: as root that folder is closed to the postgres user.
    root = Path(tempfile.mkdtemp(prefix="tribunal-postgres-"))
    data, port = root / "data", free_port()
    if os.geteuid() == 0:
        shutil.chown(root, SERVICE_USER)
    try:
        _run([str(bindir / "initdb"), "-D", str(data), "-U", ROLE, "--auth=trust", "-E", "UTF8", "--no-sync"], timeout)
        options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"
        _run([str(bindir / "pg_ctl"), "start", "-D", str(data), "-l", str(root / "server.log"), "-w",
              "-t", str(int(timeout)), "-o", options], timeout + 10)
        try:
            _run([str(bindir / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", ROLE, DATABASE], timeout)
            yield f"postgresql://{ROLE}@127.0.0.1:{port}/{DATABASE}"
        finally:
            _run([str(bindir / "pg_ctl"), "stop", "-D", str(data), "-m", "fast", "-w"], timeout)
    finally:
        shutil.rmtree(root, ignore_errors=True)

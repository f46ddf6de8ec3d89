"""A real ``mlflow server`` process on loopback (127.0.0.1, a free port) for the shared-server tests.

Backed by a SQLite file (or a given store, e.g. PostgreSQL) and a local artifact folder in a temporary directory; started with the
same Python (``python -m mlflow server``), polled on ``/health``, stopped by its process id.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Iterator


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def http_process(command: list[str], url: str, health: str, log_path: Path, env: dict[str, str],
                 timeout: float) -> Iterator[str]:
    """Run ``command`` (a server process), wait until ``url + health`` answers 200 (bounded), yield ``url``,
    stop it by its process id. Its output goes to ``log_path``; an early exit or a timeout raises with the log's end."""
    name = " ".join(command[2:4])
    with log_path.open("w") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
        try:
            deadline = time.monotonic() + timeout
            while True:
                if process.poll() is not None:
                    raise RuntimeError(f"{name} exited with {process.returncode}: {log_path.read_text()[-2000:]}")
                with contextlib.suppress(OSError):
                    with urllib.request.urlopen(f"{url}{health}", timeout=2) as answer:
                        if answer.status == 200:
                            break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{name} did not start in {timeout:.0f} s: {log_path.read_text()[-2000:]}")
                time.sleep(0.5)
            yield url
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


@contextlib.contextmanager
def mlflow_server(root: Path, timeout: float = 180.0, backend_store_uri: str | None = None) -> Iterator[str]:
    """``http://127.0.0.1:PORT`` of a running server whose files live under ``root``.

    ``backend_store_uri``: another store than the SQLite file (e.g. a PostgreSQL database).
    """
    root.mkdir(parents=True, exist_ok=True)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"} | {"LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    command = [sys.executable, "-m", "mlflow", "server", "--host", "127.0.0.1", "--port", str(port), "--workers", "1",
               "--backend-store-uri", backend_store_uri or f"sqlite:///{root / 'server.db'}",
               "--artifacts-destination", str(root / "artifacts")]
    with http_process(command, f"http://127.0.0.1:{port}", "/health", root / "server.log", env, timeout) as url:
        yield url

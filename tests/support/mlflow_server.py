"""A real ``mlflow server`` process on loopback (127.0.0.1, a free port) for the shared-server tests.

Backed by a SQLite file and a local artifact folder in a temporary directory; started with the
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
def mlflow_server(root: Path, timeout: float = 180.0) -> Iterator[str]:
    """``http://127.0.0.1:PORT`` of a running server whose files live under ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"} | {"LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    log = (root / "server.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "mlflow", "server", "--host", "127.0.0.1", "--port", str(port), "--workers", "1",
         "--backend-store-uri", f"sqlite:///{root / 'server.db'}", "--artifacts-destination", str(root / "artifacts")],
        stdout=log, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"mlflow server exited with {process.returncode}: {(root / 'server.log').read_text()[-2000:]}")
            with contextlib.suppress(OSError):
                with urllib.request.urlopen(f"{url}/health", timeout=2) as answer:
                    if answer.status == 200:
                        break
            if time.monotonic() > deadline:
                raise RuntimeError(f"mlflow server did not start in {timeout:.0f} s")
            time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        log.close()

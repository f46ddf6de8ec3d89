"""Where a local model server's output goes, and how its end is told: one named log file per server.

The log (the server's stdout and stderr, and a line from tribunal at each restart) is kept after the
server stops, so the path printed when a server dies still leads somewhere. It lives in
``$TRIBUNAL_LOCAL_SERVER_LOGS`` or, by default, ``<temp dir>/tribunal-local-servers/``: tribunal's
own folder, never cleaned up by tribunal (the system's temp cleaning removes old ones).
"""

from __future__ import annotations

import os
import signal
import tempfile
import time
from pathlib import Path

LOGS_ENV = "TRIBUNAL_LOCAL_SERVER_LOGS"
TAIL_LINES = 5  # lines of the log quoted when a server fails to start or dies


def log_dir() -> Path:
    """The folder that keeps the servers' logs (made on first use)."""
    folder = Path(os.environ.get(LOGS_ENV) or Path(tempfile.gettempdir()) / "tribunal-local-servers")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def new_log_path(gguf: Path) -> Path:
    """A fresh log file name for a server of ``gguf``: model stem, start time, tribunal's pid."""
    return log_dir() / f"{gguf.stem}-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"


def tail(path: Path | None, lines: int = TAIL_LINES) -> str:
    """The last non-empty ``lines`` of the log, joined with `` | `` (one line); empty without one."""
    if path is None or not path.is_file():
        return ""
    with open(path, "rb") as log:
        log.seek(max(0, log.seek(0, os.SEEK_END) - 64 * 1024))  # the end is enough; a log can grow large
        text = log.read().decode("utf-8", "replace")
    kept = [line.strip() for line in text.splitlines() if line.strip()]
    return " | ".join(kept[-lines:])


def exit_description(status: int) -> str:
    """``killed by SIGSEGV`` for a negative Popen status, ``exited with status 3`` otherwise."""
    if status < 0:
        try:
            return f"was killed by {signal.Signals(-status).name}"
        except ValueError:
            return f"was killed by signal {-status}"
    return f"exited with status {status}"

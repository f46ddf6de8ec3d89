"""llama.cpp's OpenAI-compatible server on loopback, for one run: started, health-checked, stopped.

:class:`LocalServer` runs ``python -m llama_cpp.server --model GGUF --host 127.0.0.1 --port <free>
--n_threads <cores> --n_ctx N`` in a process group of its own (a Ctrl-C at the terminal reaches
tribunal, which finishes the calls in flight, not the server), polls ``/v1/models`` until the model
answers (a bounded wait; if the server dies first, the error carries the tail of its stderr), and
stops the whole group on :meth:`~LocalServer.stop` (SIGTERM, then SIGKILL). Nothing is left running
even if tribunal itself is killed: the server runs under this module's watchdog
(``python -m tribunal.programs.local_server --parent PID -- ARGS``), which exits as soon as its
parent is gone.

llama-cpp-python's server defaults to one thread; it answers one request at a time and reuses the
prompt prefix it shares with the previous request.

Test hook: ``TRIBUNAL_LOCAL_SERVER_MODULE`` names another module to run in place of
``llama_cpp.server`` (same arguments), so tests drive the whole lifecycle without the extra.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import IO, Optional

STARTUP_SECONDS = 180.0  # loading a 93 MB GGUF takes about a second; a 7B model on a slow disk far longer
STOP_SECONDS = 10.0
STDERR_TAIL = 5  # lines of the server's stderr quoted when it fails to start
DEFAULT_CONTEXT = 8192
SERVER_MODULE = "llama_cpp.server"
SERVER_MODULE_ENV = "TRIBUNAL_LOCAL_SERVER_MODULE"


def server_module() -> str:
    """The module that serves the model: llama.cpp's, unless the test hook names another."""
    return os.environ.get(SERVER_MODULE_ENV) or SERVER_MODULE


class LocalServerError(Exception):
    """The local server could not be started (one line, with the server's own last words)."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _tail(stream: IO[bytes] | None) -> str:
    if stream is None:
        return ""
    stream.flush()
    stream.seek(0)
    lines = [line.strip() for line in stream.read().decode("utf-8", "replace").splitlines() if line.strip()]
    return " | ".join(lines[-STDERR_TAIL:])


class LocalServer:
    """One llama.cpp server for ``gguf``, answering as model ``alias`` at :attr:`api_base`."""

    def __init__(self, gguf: Path, alias: str = "local", threads: Optional[int] = None,
                 context: int = DEFAULT_CONTEXT, startup_seconds: float = STARTUP_SECONDS):
        self.gguf, self.alias, self.context = Path(gguf), alias, context
        self.threads = threads or os.cpu_count() or 1
        self.startup_seconds = startup_seconds
        self.port: Optional[int] = None
        self.process: Optional[subprocess.Popen] = None
        self._stderr: Optional[IO[bytes]] = None
        self._lock = threading.Lock()

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def command(self) -> list[str]:
        """The watchdog's command line, llama.cpp's server arguments after ``--``."""
        return [sys.executable, "-m", "tribunal.programs.local_server", "--parent", str(os.getpid()),
                "--module", server_module(), "--",
                "--model", str(self.gguf), "--model_alias", self.alias, "--host", "127.0.0.1",
                "--port", str(self.port), "--n_threads", str(self.threads), "--n_ctx", str(self.context),
                "--verbose", "False"]

    def start(self) -> "LocalServer":
        """Start the server and return once it answers; :class:`LocalServerError` if it cannot."""
        with self._lock:
            if self.process is not None:
                return self
            self.port = free_port()
            self._stderr = tempfile.TemporaryFile(prefix="tribunal-local-server-")
            self.process = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                            stderr=self._stderr, start_new_session=True)
        try:
            self._wait_until_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_until_ready(self) -> None:
        deadline = time.monotonic() + self.startup_seconds
        while True:
            status = self.process.poll() if self.process else None
            if status is not None:
                raise LocalServerError(f"the local model server for {self.gguf.name} exited with status {status} "
                                       f"while starting: {_tail(self._stderr) or 'no output'}")
            if self.answers():
                return
            if time.monotonic() > deadline:
                raise LocalServerError(f"the local model server for {self.gguf.name} did not answer within "
                                       f"{self.startup_seconds:g} s: {_tail(self._stderr) or 'no output'}")
            time.sleep(0.2)

    def answers(self) -> bool:
        """Whether ``/v1/models`` answers 200 now."""
        try:
            with urllib.request.urlopen(f"{self.api_base}/models", timeout=2) as response:
                return response.status == 200
        except (urllib.error.URLError, OSError, ValueError):
            return False

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self) -> None:
        """Stop the server's whole process group (idempotent)."""
        with self._lock:
            process, self.process = self.process, None
            stderr, self._stderr = self._stderr, None
        if process is not None:
            for sig, wait in ((signal.SIGTERM, STOP_SECONDS), (signal.SIGKILL, STOP_SECONDS)):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, sig)
                try:
                    process.wait(timeout=wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
        if stderr is not None:
            stderr.close()

    def __enter__(self) -> "LocalServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _watch_parent(parent: int) -> None:
    """Exit (taking the server with it) once the process that started us is gone."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


def main(argv: list[str]) -> None:
    """``--parent PID --module NAME -- ARGS``: run module NAME (llama.cpp's server) with ARGS while PID lives."""
    import runpy

    if len(argv) < 5 or argv[0] != "--parent" or argv[2] != "--module" or argv[4] != "--":
        raise SystemExit("usage: python -m tribunal.programs.local_server --parent PID --module NAME -- ARGS...")
    threading.Thread(target=_watch_parent, args=(int(argv[1]),), daemon=True).start()
    sys.argv = [argv[3], *argv[5:]]
    runpy.run_module(argv[3], run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main(sys.argv[1:])

"""llama.cpp's OpenAI-compatible server on loopback, for one run: started, health-checked, stopped.

:class:`LocalServer` runs ``python -m llama_cpp.server --model GGUF --host 127.0.0.1 --port <free>
--n_threads <cores> --n_ctx N`` in a process group of its own (a Ctrl-C at the terminal reaches
tribunal, which finishes the calls in flight, not the server), polls ``/v1/models`` until the model
answers (a bounded wait; if the server dies first, the error carries the tail of its log), and
stops the whole group on :meth:`~LocalServer.stop` (SIGTERM, then SIGKILL). Nothing is left running
even if tribunal itself is killed: the server runs under this module's watchdog
(``python -m tribunal.programs.local_server --parent PID --module NAME -- ARGS``), which exits as soon
as its parent is gone. The server's output goes to a named log that outlives it
(:mod:`tribunal.programs.server_log`).

A server that dies while a run uses it (a watcher thread polls it; a call that fails with a
connection error asks :meth:`LocalServer.recover` too) is named in one line -- its exit status or
signal, the last lines of its log and the log's path -- and restarted once, on the same port (so
every engine and worker process keeps its address), with weight repacking off
(:mod:`tribunal.programs.llama_no_repack`: the crash llama.cpp's repacked weights cause on AMX CPUs
in VMs). The calls that were in flight are sent again (:class:`~tribunal.programs.server_engine.ServerEngine`).
If it dies again, :meth:`~LocalServer.recover` raises
:class:`~tribunal.programs.server_lost.LocalServerLost`, which stops the run.

llama-cpp-python's server answers one request at a time
(:data:`tribunal.programs.server_slots.LOCAL_SERVER_SLOTS`) and reuses the prompt prefix it shares with the previous
request. It runs on :func:`default_threads` threads, for generation and for prompts alike: one core
is left to tribunal and whatever else runs. llama.cpp's threads wait for each other at every step by
spinning, so on a machine whose cores are all busy they spin against the other processes: on 2
shared cores SmolLM2-135M generated 1-3 tokens/s on 2 threads against 14-38 on 1. It is started with
``--logits_all False``: the server's default (True) keeps the logits of every prompt token (an
``n_ctx`` x 49,152 array for SmolLM2, and a copy of every prompt's logits on each request), which
only logprobs need, and tribunal asks for none.

Test hook: a test sets :data:`server_module_override` (in its own process) to another module to run in
place of ``llama_cpp.server`` (same arguments), so tests drive the whole lifecycle without the extra;
the watchdog gets the module on its command line. No environment variable names a module to import.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Callable, Optional
import runpy

from tribunal.programs.server_log import exit_description, new_log_path, tail
from tribunal.programs.llama_no_repack import MARK_OFF, turn_off_repacking
from tribunal.quiet import real_stderr

STARTUP_SECONDS = 180.0  # loading a 93 MB GGUF takes about a second; a 7B model on a slow disk far longer
STOP_SECONDS = 10.0
RESTARTS = 1  # a server that dies is restarted once; a second death stops the run
RECOVER_SECONDS = 10.0  # how long a failed call waits for a dying server to be reaped before it is re-sent
WATCH_SECONDS = 0.2
NO_REPACK_FLAG = "--no-repack"
DEFAULT_CONTEXT = 8192
SERVER_MODULE = "llama_cpp.server"
server_module_override: Optional[str] = None
"""The test hook (see the module docstring): None outside tests."""


def default_threads(cores: Optional[int] = None) -> int:
    """Threads for the server: every core but one (at least one); see the module docstring."""
    cores = cores if cores is not None else (os.cpu_count() or 1)
    return max(1, cores - 1)


def server_module() -> str:
    """The module that serves the model: llama.cpp's, unless the test hook names another."""
    return server_module_override or SERVER_MODULE


class LocalServerError(Exception):
    """The local server could not be started (one line, with the server's own last words)."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def notify_stderr(text: str) -> None:
    """The default way a server's death is told: one line on tribunal's stderr (the real one, even
    while a command sends the libraries' output to a sink)."""
    print(f"tribunal: warning: {text}", file=real_stderr(), flush=True)


class LocalServer:
    """One llama.cpp server for ``gguf``, answering as model ``alias`` at :attr:`api_base`.

    ``notify`` receives the one line said when the server dies (default: tribunal's stderr).
    """

    def __init__(self, gguf: Path, alias: str = "local", threads: Optional[int] = None,
                 context: int = DEFAULT_CONTEXT, startup_seconds: float = STARTUP_SECONDS,
                 notify: Callable[[str], None] = notify_stderr):
        self.gguf, self.alias, self.context = Path(gguf), alias, context
        self.threads = threads or default_threads()
        self.startup_seconds = startup_seconds
        self.notify = notify
        self.port: Optional[int] = None
        self.process: Optional[subprocess.Popen] = None
        self.log_path: Optional[Path] = None
        self.restarts = 0
        self.no_repack = False  # the configuration the current process was started with
        self.deaths: list[str] = []  # the line said at each death
        self.lost: Optional[tuple[str, str]] = None  # (why, log) once the server is gone for good
        self._lock = threading.Lock()  # process / port / log
        self._restart_lock = threading.Lock()  # one death handled at a time
        self._stopping = threading.Event()

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def command(self, no_repack: bool = False) -> list[str]:
        """The watchdog's command line, llama.cpp's server arguments after ``--``."""
        safe = [NO_REPACK_FLAG] if no_repack else []
        return [sys.executable, "-m", "tribunal.programs.local_server", "--parent", str(os.getpid()),
                "--module", server_module(), *safe, "--",
                "--model", str(self.gguf), "--model_alias", self.alias, "--host", "127.0.0.1",
                "--port", str(self.port), "--n_threads", str(self.threads), "--n_threads_batch", str(self.threads),
                "--n_ctx", str(self.context), "--logits_all", "False", "--verbose", "False"]

    def start(self) -> "LocalServer":
        """Start the server and return once it answers; :class:`LocalServerError` if it cannot."""
        with self._lock:
            if self.process is not None:
                return self
            self.port = free_port()
            self.log_path = new_log_path(self.gguf)
            self._stopping.clear()
            self._launch(no_repack=False)
        try:
            self._wait_until_ready("while starting")
        except BaseException:
            self.stop()
            raise
        threading.Thread(target=self._watch, name=f"local-server-watch-{self.port}", daemon=True).start()
        return self

    def _launch(self, no_repack: bool) -> None:
        with open(self.log_path, "ab") as log:  # the child keeps its own descriptor; the file stays
            self.process = subprocess.Popen(self.command(no_repack), stdin=subprocess.DEVNULL, stdout=log,
                                            stderr=subprocess.STDOUT, start_new_session=True)
        self.no_repack = no_repack

    def _wait_until_ready(self, when: str) -> None:
        deadline = time.monotonic() + self.startup_seconds
        while True:
            status = self.process.poll() if self.process else None
            if status is not None:
                raise LocalServerError(f"the local model server for {self.gguf.name} {exit_description(status)} "
                                       f"{when}: {tail(self.log_path) or 'no output'} (log: {self.log_path})")
            if self.answers():
                return
            if time.monotonic() > deadline:
                raise LocalServerError(f"the local model server for {self.gguf.name} did not answer within "
                                       f"{self.startup_seconds:g} s {when}: {tail(self.log_path) or 'no output'} "
                                       f"(log: {self.log_path})")
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

    def _watch(self) -> None:
        """Notice a death while nothing is calling (a call's connection error also leads to :meth:`recover`)."""
        while not self._stopping.wait(WATCH_SECONDS):
            process = self.process
            if process is not None and process.poll() is not None:
                self._handle_death(process)
                if self.lost:
                    return

    def _handle_death(self, process: subprocess.Popen) -> None:
        """Say how ``process`` ended; restart it once (repacking off), or record that the server is lost."""
        with self._restart_lock:
            if self._stopping.is_set() or self.process is not process or self.lost:
                return  # stopped on purpose, or this death was handled already
            died = f"the local model server for {self.gguf.name} {exit_description(process.returncode)}"
            log = f"log: {self.log_path}, last lines: {tail(self.log_path) or 'none'}"
            if self.restarts >= RESTARTS:
                self.lost = (f"{died} after its one restart, so the run stops", log)
                self.deaths.append("; ".join(self.lost))
                return
            self.restarts += 1
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)  # anything the dead server left in its group
            with self._lock:
                with open(self.log_path, "ab") as log_file:
                    log_file.write(f"tribunal: restarting the server: it {exit_description(process.returncode)}\n".encode())
                self._launch(no_repack=True)
            try:
                self._wait_until_ready("after its restart")
            except LocalServerError as err:
                self.lost = (f"{died}, and restarting it failed, so the run stops: {err}", "")
                self.deaths.append(self.lost[0])
                return

            safer = ("with weight repacking off (llama.cpp's use_extra_bufts=false)" if MARK_OFF in tail(self.log_path, 50)
                     else "with the same configuration (weight repacking could not be turned off)")
            line = f"{died}; restarted it once, on the same port, {safer}; the calls in flight are sent again ({log})"
            self.deaths.append(line)
        self.notify(line)

    def recover(self) -> None:
        """After a call's connection error: return once the server answers again, or raise ``LocalServerLost``.

        A server still running and answering returns at once (the call is simply re-sent); one that
        is dying is waited for (up to :data:`RECOVER_SECONDS`), named and restarted.
        """
        from tribunal.programs.server_lost import LocalServerLost  # heavy: pulls in dspy, pydantic

        deadline = time.monotonic() + RECOVER_SECONDS
        while not self.lost and time.monotonic() < deadline:
            process = self.process
            if process is None:
                return  # stopped on purpose: the call fails as it would without a server
            if process.poll() is not None:
                self._handle_death(process)
                continue
            with self._restart_lock:  # a restart under way finishes first
                pass
            if self.process is process and self.answers():
                return
            time.sleep(0.1)
        if self.lost:
            raise LocalServerLost(*self.lost)

    def stop(self) -> None:
        """Stop the server's whole process group (idempotent). Its log stays."""
        self._stopping.set()
        with self._lock:
            process, self.process = self.process, None
        if process is not None:
            for sig, wait in ((signal.SIGTERM, STOP_SECONDS), (signal.SIGKILL, STOP_SECONDS)):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, sig)
                try:
                    process.wait(timeout=wait)
                    break
                except subprocess.TimeoutExpired:
                    continue

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
    """``--parent PID --module NAME [--no-repack] -- ARGS``: run module NAME (llama.cpp's server) with ARGS
    while PID lives; ``--no-repack`` first turns llama.cpp's weight repacking off."""
    no_repack = len(argv) > 4 and argv[4] == NO_REPACK_FLAG
    rest = 5 + no_repack
    if len(argv) < rest or argv[0] != "--parent" or argv[2] != "--module" or argv[rest - 1] != "--":
        raise SystemExit("usage: python -m tribunal.programs.local_server --parent PID --module NAME "
                         f"[{NO_REPACK_FLAG}] -- ARGS...")
    threading.Thread(target=_watch_parent, args=(int(argv[1]),), daemon=True).start()
    if no_repack:
        print(turn_off_repacking(), file=sys.stderr, flush=True)
    sys.argv = [argv[3], *argv[rest:]]
    runpy.run_module(argv[3], run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main(sys.argv[1:])

"""A stand-in for ``python -m llama_cpp.server`` (:func:`serve_stand_in`), for lifecycle tests.

Takes the same arguments tribunal passes (``--model``, ``--model_alias``, ``--port``, ...), serves
``/v1/models`` and ``/v1/chat/completions`` on 127.0.0.1 and answers every chat with ``FAKE_LLAMA_ANSWER``
(default: an empty JSON object) after ``FAKE_LLAMA_LATENCY`` seconds. ``FAKE_LLAMA_PID_FILE``: write
this process's pid there once listening. ``FAKE_LLAMA_FAIL``: print it on stderr and exit 3 instead
of serving (a server that dies while starting).

A server that crashes mid-run: ``FAKE_LLAMA_CRASHES=FILE`` holds how many crashes are left (shared by
every start of the server); while it is above 0, the ``FAKE_LLAMA_CRASH_AT``-th chat request
(default 3) a process receives takes one off and kills the process with SIGSEGV before answering,
as llama.cpp does on an AMX CPU in a VM. ``FAKE_LLAMA_ANSWERED=FILE``: one line per chat answered
(HTTP 200, counted just before it is sent), appended across restarts.

A server with slots, as llama.cpp's ``llama-server --parallel N``: ``FAKE_LLAMA_SLOTS=N`` serves at
most N chats at once (the others wait in its queue, as there), and ``FAKE_LLAMA_EXPOSE`` says what
it tells of them: ``props`` (``GET /props`` with ``total_slots``), ``slots`` (``GET /slots``, one entry
per slot), ``both``, or ``none`` (the default: every other GET path answers 404, as llama-cpp-python's
server does). ``FAKE_LLAMA_PEAK=FILE``: the most chats this process had in flight at once, rewritten
as it grows. In-process, :func:`fake_llama` serves the same handler on a free port.
"""

from __future__ import annotations

STAND_IN = "tests.support.fake_llama_server"
STAND_IN_PRELUDE = ("import tribunal.programs.local_server as _server; "
                    f"_server.server_module_override = {STAND_IN!r}; ")
"""Python to run first in a child process that should start the stand-in (``python -c PRELUDE + ...``)."""


def serve_stand_in(monkeypatch) -> None:
    """Local servers started in this process (for the rest of the test) run the stand-in."""
    from tribunal.programs import local_server

    monkeypatch.setattr(local_server, "server_module_override", STAND_IN)


def stand_in_cli(*args: str) -> list[str]:
    """``python -m tribunal ARGS`` whose local servers run the stand-in."""
    import sys

    return [sys.executable, "-c", STAND_IN_PRELUDE + "from tribunal.cli import main; main()", *args]

import argparse
import contextlib
import json
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Iterator

from tests.support.serving import serving


_received = {"chats": 0}
_lock = threading.Lock()


def _maybe_crash() -> None:
    """SIGSEGV on this process's ``FAKE_LLAMA_CRASH_AT``-th chat while ``FAKE_LLAMA_CRASHES`` has some left."""
    crashes = os.environ.get("FAKE_LLAMA_CRASHES")
    with _lock:
        _received["chats"] += 1
        if not crashes or _received["chats"] != int(os.environ.get("FAKE_LLAMA_CRASH_AT", "3")):
            return
        left = int(open(crashes, encoding="utf-8").read().strip() or 0)
        if left <= 0:
            return
        with open(crashes, "w", encoding="utf-8") as out:
            out.write(str(left - 1))
    print("ggml: repacking q4_1 weights (fake)", file=sys.stderr, flush=True)
    os.kill(os.getpid(), signal.SIGSEGV)


def _answered() -> None:
    target = os.environ.get("FAKE_LLAMA_ANSWERED")
    if target:
        with _lock, open(target, "a", encoding="utf-8") as out:
            out.write("200\n")


@dataclass
class Slots:
    """A server's slots: ``slots`` chats at once (None: no limit), what ``expose`` tells, the peak in flight."""

    slots: int | None = None
    expose: str = "none"
    latency: float = 0.0
    peak: int = 0
    in_flight: int = 0
    chats: int = 0
    peak_file: str | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    queue: threading.Semaphore | None = None

    def __post_init__(self) -> None:
        self.queue = threading.Semaphore(self.slots) if self.slots else None

    @classmethod
    def from_env(cls) -> "Slots":
        slots = os.environ.get("FAKE_LLAMA_SLOTS")
        return cls(int(slots) if slots else None, os.environ.get("FAKE_LLAMA_EXPOSE", "none"),
                   float(os.environ.get("FAKE_LLAMA_LATENCY", "0")), peak_file=os.environ.get("FAKE_LLAMA_PEAK"))

    @contextlib.contextmanager
    def serving_one(self) -> Iterator[None]:
        """Hold a slot (waiting in the queue for one), counting the chats in flight at once."""
        with self.queue if self.queue is not None else contextlib.nullcontext():
            with self.lock:
                self.in_flight += 1
                self.chats += 1
                if self.in_flight > self.peak:
                    self.peak = self.in_flight
                    if self.peak_file:
                        with open(self.peak_file, "w", encoding="utf-8") as out:
                            out.write(str(self.peak))
            try:
                yield
            finally:
                with self.lock:
                    self.in_flight -= 1

    def shows(self, path: str) -> object | None:
        """What ``GET path`` answers about the slots (None: 404)."""
        total = self.slots or 1
        if path == "/props" and self.expose in ("props", "both"):
            return {"total_slots": total, "default_generation_settings": {"n_ctx": 8192}, "build_info": "fake"}
        if path == "/slots" and self.expose in ("slots", "both"):
            return [{"id": i, "n_ctx": 8192, "is_processing": False} for i in range(total)]
        return None


def _handler(alias: str, slots: Slots | None = None) -> type[BaseHTTPRequestHandler]:
    slots = slots or Slots()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _send(self, payload: object, status: int = 200) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            path = self.path.split("?")[0].rstrip("/")
            if path.endswith("/models"):
                return self._send({"object": "list", "data": [{"id": alias, "object": "model"}]})
            shown = slots.shows(path)
            self._send(shown if shown is not None else {"detail": "Not Found"}, 200 if shown is not None else 404)

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            _maybe_crash()
            with slots.serving_one():
                time.sleep(slots.latency)
                text = os.environ.get("FAKE_LLAMA_ANSWER", "{}")
                # Counted before it is sent: once the client has the answer, its next request may crash this
                # process (on another handler thread) before a count written after the send.
                _answered()
                self._send({"id": "x", "object": "chat.completion", "created": 0, "model": alias,
                            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                         "finish_reason": "stop"}],
                            "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}})

    return Handler


@contextlib.contextmanager
def fake_llama(slots: Slots, alias: str = "fake") -> Iterator[str]:
    """``http://127.0.0.1:PORT/v1`` of this fake server, in this process, with ``slots``."""
    with serving(_handler(alias, slots)) as api_base:
        yield api_base


def main() -> None:
    parser = argparse.ArgumentParser()
    for name in ("--model", "--model_alias", "--host", "--port", "--n_threads", "--n_threads_batch", "--n_ctx",
                 "--logits_all", "--verbose"):
        parser.add_argument(name)
    args = parser.parse_args()
    if os.environ.get("FAKE_LLAMA_FAIL"):
        print("loading the model", file=sys.stderr)
        print(os.environ["FAKE_LLAMA_FAIL"], file=sys.stderr)
        sys.exit(3)
    server = ThreadingHTTPServer((args.host, int(args.port)), _handler(args.model_alias, Slots.from_env()))
    server.daemon_threads = True
    if os.environ.get("FAKE_LLAMA_PID_FILE"):
        with open(os.environ["FAKE_LLAMA_PID_FILE"], "w", encoding="utf-8") as out:
            out.write(str(os.getpid()))
    server.serve_forever(poll_interval=0.05)


if __name__ == "__main__":
    main()

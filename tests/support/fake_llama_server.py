"""A stand-in for ``python -m llama_cpp.server`` (``TRIBUNAL_LOCAL_SERVER_MODULE``), for lifecycle tests.

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
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


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


def _handler(alias: str) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _send(self, payload: dict) -> None:
            data = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._send({"object": "list", "data": [{"id": alias, "object": "model"}]})

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            _maybe_crash()
            time.sleep(float(os.environ.get("FAKE_LLAMA_LATENCY", "0")))
            text = os.environ.get("FAKE_LLAMA_ANSWER", "{}")
            # Counted before it is sent: once the client has the answer, its next request may crash this
            # process (on another handler thread) before a count written after the send.
            _answered()
            self._send({"id": "x", "object": "chat.completion", "created": 0, "model": alias,
                        "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                     "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}})

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser()
    for name in ("--model", "--model_alias", "--host", "--port", "--n_threads", "--n_ctx", "--verbose"):
        parser.add_argument(name)
    args = parser.parse_args()
    if os.environ.get("FAKE_LLAMA_FAIL"):
        print("loading the model", file=sys.stderr)
        print(os.environ["FAKE_LLAMA_FAIL"], file=sys.stderr)
        sys.exit(3)
    server = ThreadingHTTPServer((args.host, int(args.port)), _handler(args.model_alias))
    server.daemon_threads = True
    if os.environ.get("FAKE_LLAMA_PID_FILE"):
        with open(os.environ["FAKE_LLAMA_PID_FILE"], "w", encoding="utf-8") as out:
            out.write(str(os.getpid()))
    server.serve_forever(poll_interval=0.05)


if __name__ == "__main__":
    main()

"""A stand-in for ``python -m llama_cpp.server`` (``TRIBUNAL_LOCAL_SERVER_MODULE``), for lifecycle tests.

Takes the same arguments tribunal passes (``--model``, ``--model_alias``, ``--port``, ...), serves
``/v1/models`` and ``/v1/chat/completions`` on 127.0.0.1 and answers every chat with ``FAKE_LLAMA_ANSWER``
(default: an empty JSON object) after ``FAKE_LLAMA_LATENCY`` seconds. ``FAKE_LLAMA_PID_FILE``: write
this process's pid there once listening. ``FAKE_LLAMA_FAIL``: print it on stderr and exit 3 instead
of serving (a server that dies while starting).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


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
            time.sleep(float(os.environ.get("FAKE_LLAMA_LATENCY", "0")))
            text = os.environ.get("FAKE_LLAMA_ANSWER", "{}")
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

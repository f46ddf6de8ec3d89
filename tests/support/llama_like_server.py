"""A loopback OpenAI-compatible server that behaves like llama-cpp-python's, for the server-engine tests.

It refuses ``response_format: {"type": "json_schema"}`` with HTTP 500 and the pydantic message that
server sends ("Input should be 'text' or 'json_object'"), takes ``json_object`` (with or without a
``schema``), ignores ``max_completion_tokens``, answers every chat with ``answer(body)`` after
``latency`` seconds, and keeps every request body (``state.bodies``) and status (``state.statuses``).
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler
from typing import Any, Callable, Iterator

from tests.support.serving import serving

REFUSAL = ("1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
           "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}")


class LlamaLikeState:
    def __init__(self, answer: Callable[[dict], str], latency: float):
        self.answer, self.latency = answer, latency
        self.bodies: list[dict[str, Any]] = []
        self.statuses: list[int] = []
        self.lock = threading.Lock()


def _handler(state: LlamaLikeState) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, status: int, payload: dict) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(data)

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            refused = (body.get("response_format") or {}).get("type") == "json_schema"
            with state.lock:
                state.bodies.append(body)
                state.statuses.append(500 if refused else 200)
            if refused:
                return self._send(500, {"error": {"message": REFUSAL, "type": "internal_server_error"}})
            time.sleep(state.latency)
            text = state.answer(body)
            self._send(200, {"id": "x", "object": "chat.completion", "created": 0, "model": body.get("model"),
                             "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                          "finish_reason": "stop"}],
                             "usage": {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25}})

    return Handler


@contextlib.contextmanager
def llama_like_server(answer: Callable[[dict], str], latency: float = 0.0) -> Iterator[tuple[str, LlamaLikeState]]:
    """``(api_base, state)`` of a running server; shut down on exit."""
    state = LlamaLikeState(answer, latency)
    with serving(_handler(state)) as api_base:
        yield api_base, state

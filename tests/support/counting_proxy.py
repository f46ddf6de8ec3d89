"""A loopback proxy in front of an OpenAI-compatible server that counts what the server itself answered.

Every ``POST .../chat/completions`` is forwarded as it is; the proxy keeps the request body, the
status and the server's answer (its text, ``finish_reason`` and ``usage``), so a test can compare
the calls and tokens tribunal reports with the server's own counts (llama-cpp-python's server has no
``/metrics``). ``GET`` requests (``/v1/models``) are forwarded too.
"""

from __future__ import annotations

import contextlib
import json
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any, Iterator

from tests.support.serving import serving


@dataclass
class Exchange:
    body: dict[str, Any]
    status: int
    answer: str | None = None
    finish_reason: str | None = None
    usage: dict[str, int] = field(default_factory=dict)


class ProxyState:
    def __init__(self) -> None:
        self.exchanges: list[Exchange] = []
        self.lock = threading.Lock()

    def mark(self) -> int:
        with self.lock:
            return len(self.exchanges)

    def since(self, mark: int) -> list[Exchange]:
        with self.lock:
            return list(self.exchanges[mark:])


def totals(exchanges: list[Exchange]) -> tuple[int, int, int]:
    """``(answered calls, prompt tokens, completion tokens)`` of the answered exchanges."""
    answered = [e for e in exchanges if e.status == 200]
    return (len(answered), sum(e.usage.get("prompt_tokens", 0) for e in answered),
            sum(e.usage.get("completion_tokens", 0) for e in answered))


def _handler(upstream: str, state: ProxyState) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def _relay(self, data: bytes | None) -> tuple[int, bytes, str]:
            request = urllib.request.Request(upstream + self.path.removeprefix("/v1"), data=data,
                                             method=self.command, headers={"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(request, timeout=3600) as response:
                    return response.status, response.read(), response.headers.get("Content-Type", "application/json")
            except urllib.error.HTTPError as err:
                return err.code, err.read(), "application/json"

        def _send(self, status: int, payload: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(payload)

        def do_GET(self) -> None:
            self._send(*self._relay(None))

        def do_POST(self) -> None:
            data = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            status, payload, kind = self._relay(data)
            exchange = Exchange(body=json.loads(data or b"{}"), status=status)
            if status == 200:
                answer = json.loads(payload)
                choice = (answer.get("choices") or [{}])[0]
                exchange.answer = (choice.get("message") or {}).get("content")
                exchange.finish_reason = choice.get("finish_reason")
                exchange.usage = answer.get("usage") or {}
            with state.lock:
                state.exchanges.append(exchange)
            self._send(status, payload, kind)

    return Handler


@contextlib.contextmanager
def counting_proxy(upstream: str) -> Iterator[tuple[str, ProxyState]]:
    """``(api_base, state)`` of a proxy forwarding to ``upstream`` (an ``.../v1`` base URL)."""
    state = ProxyState()
    with serving(_handler(upstream.rstrip("/"), state)) as api_base:
        yield api_base, state

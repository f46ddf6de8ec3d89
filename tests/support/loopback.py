"""A loopback OpenAI-compatible chat-completions server for tests and the runner benchmark.

``http.server`` on 127.0.0.1 (port 0), one thread per connection, answering from a responder
(:mod:`mqm_fakes`, written by an optional ``render`` hook), with injectable faults: ``429``, ``500``, ``timeout`` (sleeps past the client's
timeout), ``garbage`` (a 200 answer no adapter can parse), and the unusable answers real models give
now and then (:data:`UNUSABLE`): ``refusal`` ("I'm sorry, I can't help with that."), ``wrong-keys``
(a JSON object naming none of the fields), ``truncated`` (the first half of the answer, with
``finish_reason: "length"``), and ``cut`` (the answer as the responder wrote it, with ``finish_reason:
"length"``: a loop the responder wrote, or a long answer). A fault comes from ``fault(hit number, signature name, inputs)`` or
from ``bad_answer(request body)``. ``/v1/embeddings`` answers hashed unit vectors (MLflow's judge
alignment retrieves examples by embedding). Every hit is counted, and so is the peak
of requests being answered at once (``state.peak``), with when each was answered (``state.intervals``). ``jitter`` spreads each response time uniformly
over ``latency +- jitter`` (seeded, so a run is repeatable); the default 0 keeps it fixed.
"""

from __future__ import annotations

import contextlib
import json
import random
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler
from typing import Any, Callable, Iterator

from tests.support.mqm_fakes import Renderer, Responder, answer, task_message
from tests.support.serving import serving

Fault = Callable[[int, str, dict[str, Any]], "str | None"]
BadAnswer = Callable[[dict[str, Any]], "str | None"]
"""``body -> None`` (answer normally) or one of :data:`UNUSABLE`."""
UNUSABLE = ("refusal", "wrong-keys", "truncated")
REFUSAL = "I'm sorry, I can't help with that."
HeadersFor = Callable[[int], dict[str, str]]
"""``hit number -> extra response headers`` (a provider's ``x-ratelimit-*``, say) of that answer."""
RawResponder = Callable[[dict[str, Any]], "tuple[str, str]"]
"""``body -> (name, answer text)``: answers any request (not only the MQM signatures)."""


class LoopbackState:
    def __init__(self, responder: Responder, fault: Fault | None, latency: float, hang: float,
                 render: Renderer | None = None, respond_raw: RawResponder | None = None, jitter: float = 0.0,
                 bad_answer: BadAnswer | None = None, headers: HeadersFor | None = None):
        self.responder, self.fault, self.latency, self.hang = responder, fault, latency, hang
        self.headers = headers
        self.bad_answer = bad_answer
        self.render, self.respond_raw = render, respond_raw
        self.jitter = jitter
        self.random = random.Random(0)
        self.hits: list[tuple[str, str | None, dict[str, Any]]] = []
        self.bodies: list[bytes] = []  # every request body, byte for byte, in arrival order
        self.system_prompts: list[str] = []
        self.lock = threading.Lock()
        self.in_flight = 0
        self.peak = 0
        self.intervals: list[tuple[float, float]] = []  # (arrival, departure) wall-clock times of each answer
        self.connections = 0  # connections the clients opened
        self.gate = None  # a tests.support.waiting.Gate: holds requests while closed
        self._answering = threading.local()

    @contextlib.contextmanager
    def answering(self) -> Iterator[None]:
        with self.lock:
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
        arrived = time.time()
        self._answering.open = True
        try:
            yield
        finally:
            self.answered()
            with self.lock:
                self.intervals.append((arrived, time.time()))

    def answered(self) -> None:
        """This thread's request is no longer in flight: called just before its response is written (a client
        that gets it may send its next request before the handler returns, and must not be counted twice)."""
        if getattr(self._answering, "open", False):
            self._answering.open = False
            with self.lock:
                self.in_flight -= 1


def _handler(state: LoopbackState) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        timeout = 30  # bounded: an idle connection is closed

        def log_message(self, *args: Any) -> None:
            pass

        def setup(self) -> None:
            super().setup()
            # Headers and body go out in separate writes; without TCP_NODELAY, Nagle's algorithm
            # and the client's delayed ACK add ~40 ms to every response.
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with state.lock:
                state.connections += 1

        def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            for key, value in {"Content-Type": "application/json", "Content-Length": str(len(data)),
                               **(headers or {})}.items():
                self.send_header(key, value)
            state.answered()
            self.end_headers()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(data)

        def do_POST(self) -> None:
            if state.gate is not None:
                state.gate.pass_through()
            with state.answering():
                self._answer(time.perf_counter())

        def _answer(self, received: float) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            body = json.loads(raw or b"{}")
            if self.path.rstrip("/").endswith("/embeddings"):
                return self._embed(body, raw)
            messages = body.get("messages", [])
            system = "".join(m["content"] for m in messages if m["role"] == "system" and isinstance(m["content"], str))
            user = task_message([m["content"] for m in messages if m["role"] == "user"])
            if state.respond_raw is not None:
                (name, text), inputs = state.respond_raw(body), {}
            else:
                name, text, inputs = answer(system, user, state.responder, state.render)
            with state.lock:
                number = len(state.hits)
                fault = state.fault(number, name, inputs) if state.fault else None
                fault = fault or (state.bad_answer(body) if state.bad_answer else None)
                state.hits.append((name, fault, inputs))
                state.bodies.append(raw)
                state.system_prompts.append(system)
                latency = state.latency + (state.random.uniform(-state.jitter, state.jitter) if state.jitter else 0.0)
            if latency:
                # The latency is the server's whole response time: its own parsing and answering
                # count inside it, as an LM server's prefill and decoding do.
                time.sleep(max(0.0, latency - (time.perf_counter() - received)))
            extra = state.headers(number) if state.headers else {}
            if fault == "429":
                return self._send(429, {"error": {"message": "rate limited", "type": "rate_limit"}},
                                  {"Retry-After": "0", **extra})
            if fault == "500":
                return self._send(500, {"error": {"message": "internal error"}}, {"Retry-After": "0"})
            if fault == "timeout":
                time.sleep(state.hang)
                return self._send(500, {"error": {"message": "too late"}})
            if fault == "garbage":
                text = "I think this translation is fine, mostly?"
            text = {"refusal": REFUSAL, "wrong-keys": json.dumps({"result": text[:200], "confidence": 0.9}),
                    "truncated": text[:len(text) // 2]}.get(fault, text)
            self._send(200, headers=extra, payload={
                "id": f"cmpl-{number}", "object": "chat.completion", "created": 0, "model": body.get("model"),
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                             "finish_reason": "length" if fault in ("truncated", "cut") else "stop"}],
                "usage": {"prompt_tokens": len(system + user) // 4, "completion_tokens": len(text) // 4,
                          "total_tokens": (len(system + user) + len(text)) // 4},
            })

        def _embed(self, body: dict[str, Any], raw: bytes) -> None:
            """``/v1/embeddings``: a unit vector per text from its hash (the same text, the same vector)."""
            texts = body.get("input") or []
            texts = [texts] if isinstance(texts, str) else texts
            with state.lock:
                state.hits.append(("embeddings", None, {"texts": len(texts)}))
                state.bodies.append(raw)
            data = [{"object": "embedding", "index": i, "embedding": hashed_vector(str(text), body.get("dimensions") or 8)}
                    for i, text in enumerate(texts)]
            self._send(200, {"object": "list", "data": data, "model": body.get("model"),
                             "usage": {"prompt_tokens": sum(len(str(t)) // 4 for t in texts),
                                       "total_tokens": sum(len(str(t)) // 4 for t in texts)}})

    return Handler


def hashed_vector(text: str, dimensions: int) -> list[float]:
    """A deterministic unit vector for ``text`` (similar texts are not near: mechanics, not meaning)."""
    import hashlib
    import math

    values = [b / 255 - 0.5 for b in hashlib.shake_256(text.encode()).digest(dimensions)]
    norm = math.sqrt(sum(v * v for v in values)) or 1.0
    return [v / norm for v in values]


@contextlib.contextmanager
def loopback_server(responder: Responder | None = None, fault: Fault | None = None, latency: float = 0.0,
                    hang: float = 2.0, render: Renderer | None = None, respond_raw: RawResponder | None = None,
                    jitter: float = 0.0, bad_answer: BadAnswer | None = None,
                    headers: HeadersFor | None = None) -> Iterator[tuple[str, LoopbackState]]:
    """``(api_base, state)`` of a running server; shut down on exit.

    ``render`` writes the answers (e.g. :func:`tests.support.deviations.deviating_renderer`);
    ``respond_raw`` answers whole request bodies instead of the MQM ``responder``; ``headers`` adds
    response headers per hit (a 200's or a 429's).
    """
    state = LoopbackState(responder, fault, latency, hang, render, respond_raw, jitter, bad_answer, headers)
    with serving(_handler(state)) as api_base:
        yield api_base, state

"""What ``bench_alignment.py`` talks to: a deterministic peer and a counting forwarder in front of any LM.

- :func:`peer_answer` answers every request of both pipelines from one opinion, the synthetic judge
  of ``tests/support/mqm_fakes.py`` (GEMBA-MQM: one major error in 60% of translations, by a hash of
  the translation): tribunal's DSPy prompts in DSPy's chat layout, MLflow's judge prompts with
  ``{"result": <the same GEMBA-MQM score>, "rationale": ...}``, MemAlign's guideline distillation with
  one fixed guideline. Embeddings come from the loopback server itself (hashed vectors). The peer
  ignores demos, examples and guidelines: it measures the mechanics (calls, time), not model quality.
- :func:`counting_proxy` forwards every POST to an upstream OpenAI-compatible base URL (the peer, or a
  real server) and counts it by kind (``chat``, ``embeddings``): the same wire-level count for both
  pipelines, whatever library sent the request.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import urllib.error
import urllib.request
from collections import Counter
from http.server import BaseHTTPRequestHandler
from typing import Any, Iterator

DISTILL_MARK = "distill a set of guidelines"


def _mlflow_judge_item(user: str) -> dict[str, Any]:
    """MLflow's judge user message (``inputs: {...}`` and ``outputs: "..."`` lines, in either order) -> the item."""
    parts = re.split(r"(?m)^(inputs|outputs): ", user)
    fields = {name: json.loads(value.strip()) for name, value in zip(parts[1::2], parts[2::2])}
    return {**fields["inputs"], "translation": fields["outputs"]}


def _gemba_score(item: dict[str, Any]) -> float:
    from tests.support.mqm_fakes import synthetic_judge
    from tribunal.programs.mqm.scoring import gemba_mqm_score
    from tribunal.signatures.mqm.errors import GembaError

    errors = synthetic_judge("GembaMQM", item)["errors"]
    return gemba_mqm_score([GembaError(**e) for e in errors])


def peer_answer(body: dict[str, Any]) -> tuple[str, str]:
    """``(kind, answer text)`` for one chat request (see the module docstring)."""
    from tests.support.mqm_fakes import answer, synthetic_judge

    messages = body["messages"]
    system = "".join(m["content"] for m in messages if m["role"] == "system" and isinstance(m["content"], str))
    user = [m["content"] for m in messages if m["role"] == "user"][-1]
    if DISTILL_MARK in user or DISTILL_MARK in system:
        guideline = {"guideline_text": "Weigh every mistranslated word as a major error.", "source_trace_ids": [0]}
        return "mlflow-distill", json.dumps({"guidelines": [guideline]})
    if "evaluation rating" in system:
        score = _gemba_score(_mlflow_judge_item(user))
        return "mlflow-judge", json.dumps({"result": score, "rationale": "synthetic GEMBA-MQM score"})
    name, text, _ = answer(system, user, synthetic_judge)
    return name, text


class WireCount:
    """Requests forwarded, by kind; :meth:`take` returns and resets them (one phase at a time)."""

    def __init__(self) -> None:
        self.lock, self.counts = threading.Lock(), Counter()

    def add(self, kind: str) -> None:
        with self.lock:
            self.counts[kind] += 1

    def take(self) -> Counter:
        with self.lock:
            taken, self.counts = self.counts, Counter()
        return taken


def _forwarder(upstream: str, count: WireCount) -> type[BaseHTTPRequestHandler]:
    class Forward(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            path = self.path.split("/v1", 1)[-1]
            count.add("embeddings" if path.rstrip("/").endswith("/embeddings") else "chat")
            headers = {k: v for k, v in self.headers.items() if k.lower() in ("authorization", "content-type",
                                                                              "api-key", "x-api-key")}
            request = urllib.request.Request(upstream.rstrip("/") + path, body, headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=600) as answer:
                    status, data = answer.status, answer.read()
            except urllib.error.HTTPError as err:
                status, data = err.code, err.read()
            except OSError as err:  # the upstream is down: the client sees a gateway error, as from any proxy
                status, data = 502, json.dumps({"error": {"message": f"upstream: {err}"}}).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Forward


@contextlib.contextmanager
def counting_proxy(upstream: str) -> Iterator[tuple[str, WireCount]]:
    """``(base URL on 127.0.0.1 ending in /v1, its WireCount)``, forwarding to ``upstream`` (a ``.../v1`` URL)."""
    from tests.support.serving import serving

    count = WireCount()
    with serving(_forwarder(upstream, count)) as api_base:
        yield api_base, count

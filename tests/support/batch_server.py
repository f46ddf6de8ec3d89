"""A loopback server speaking the documented batch endpoints of OpenAI and Anthropic, for tests.

OpenAI (under ``/v1``): ``POST /files`` (multipart, ``purpose=batch``), ``POST /batches``,
``GET /batches``, ``GET /batches/{id}``, ``POST /batches/{id}/cancel``, ``GET /files/{id}/content``
(output and error files). Anthropic: ``POST /v1/messages/batches``, ``GET /v1/messages/batches``,
``GET /v1/messages/batches/{id}``, ``GET /v1/messages/batches/{id}/results``,
``POST /v1/messages/batches/{id}/cancel``.

A batch is answered on the ``polls``-th status check after its creation (never while ``state.hold``
is set) by a responder of :mod:`tests.support.mqm_fakes`; ``fault(custom_id, attempt)`` may make a
line ``"error"`` (a 500 line in the error file / an ``errored`` result) or ``"expire"`` (no output,
as when a batch's window ends). Every answered line is counted in ``state.answered`` (what a
provider would bill).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import threading
import time
from collections import Counter
from email.parser import BytesParser
from email.policy import default as default_policy
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterator

from tests.support.mqm_fakes import Responder, answer

Fault = Callable[[str, int], "str | None"]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content or [] if isinstance(block, dict))


class BatchState:
    def __init__(self, responder: Responder, fault: Fault | None, polls: int):
        self.responder, self.fault, self.polls = responder, fault, polls
        self.lock = threading.Lock()
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.answered: Counter[str] = Counter()  # custom_id -> times answered (billed)
        self.attempts: Counter[str] = Counter()
        self.hold = threading.Event()
        self.ids = itertools.count(1)
        self.base = ""

    def created(self, provider: str) -> list[dict[str, Any]]:
        return [b for b in self.batches.values() if b["provider"] == provider]

    def _answer(self, system: str, user: str, custom_id: str) -> tuple[str | None, str]:
        """``(None, text)``, or ``(fault, "")`` for a line the fault hook fails."""
        self.attempts[custom_id] += 1
        fault = self.fault(custom_id, self.attempts[custom_id]) if self.fault else None
        if fault:
            return fault, ""
        self.answered[custom_id] += 1
        return None, answer(system, user, self.responder)[1]

    def advance(self, batch: dict[str, Any]) -> None:
        """Count a status check; run the batch once it has been checked ``polls`` times."""
        if batch["done"] or self.hold.is_set():
            return
        batch["checks"] += 1
        if batch["checks"] >= self.polls:
            (self._run_openai if batch["provider"] == "openai" else self._run_anthropic)(batch)
            batch["done"] = True

    def _run_openai(self, batch: dict[str, Any]) -> None:
        out, err = [], []
        for line in batch["lines"]:
            body = line["body"]
            system = "".join(_text(m["content"]) for m in body["messages"] if m["role"] == "system")
            user = [_text(m["content"]) for m in body["messages"] if m["role"] == "user"][-1]
            fault, text = self._answer(system, user, line["custom_id"])
            if fault == "expire":
                err.append({"id": f"r-{next(self.ids)}", "custom_id": line["custom_id"], "response": None,
                            "error": {"code": "batch_expired", "message": "not executed before the window ended"}})
            elif fault:
                err.append({"id": f"r-{next(self.ids)}", "custom_id": line["custom_id"],
                            "response": {"status_code": 500, "request_id": "x",
                                         "body": {"error": {"message": "internal error", "type": "server_error"}}},
                            "error": None})
            else:
                out.append({"id": f"r-{next(self.ids)}", "custom_id": line["custom_id"], "error": None, "response": {
                    "status_code": 200, "request_id": "x", "body": {
                        "id": f"cmpl-{next(self.ids)}", "object": "chat.completion", "created": 0,
                        "model": body["model"],
                        "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                     "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": len(system + user) // 4, "completion_tokens": len(text) // 4,
                                  "total_tokens": (len(system + user) + len(text)) // 4}}}})
        info = batch["info"]
        for kind, rows in (("output_file_id", out), ("error_file_id", err)):
            if rows:
                file_id = f"file-{next(self.ids)}"
                self.files[file_id] = "".join(json.dumps(r) + "\n" for r in rows).encode()
                info[kind] = file_id
        info.update(status="completed", completed_at=int(time.time()),
                    request_counts={"total": len(batch["lines"]), "completed": len(out), "failed": len(err)})

    def _run_anthropic(self, batch: dict[str, Any]) -> None:
        results, counts = [], Counter()
        for request in batch["lines"]:
            params = request["params"]
            user = [_text(m["content"]) for m in params["messages"] if m["role"] == "user"][-1]
            system = _text(params.get("system") or "")
            fault, text = self._answer(system, user, request["custom_id"])
            if fault == "expire":
                result = {"type": "expired"}
            elif fault:
                result = {"type": "errored", "error": {"type": "error", "error": {"type": "api_error",
                                                                                  "message": "internal error"}}}
            else:
                result = {"type": "succeeded", "message": {
                    "id": f"msg_{next(self.ids)}", "type": "message", "role": "assistant", "model": params["model"],
                    "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": None,
                    "usage": {"input_tokens": len(system + user) // 4, "output_tokens": len(text) // 4}}}
            counts[result["type"]] += 1
            results.append({"custom_id": request["custom_id"], "result": result})
        batch["results"] = "".join(json.dumps(r) + "\n" for r in results).encode()
        batch["info"].update(processing_status="ended", ended_at="2026-01-01T00:00:00Z", request_counts={
            "processing": 0, "succeeded": counts["succeeded"], "errored": counts["errored"],
            "canceled": 0, "expired": counts["expired"]})


def _handler(state: BatchState) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, status: int, payload: Any, content_type: str = "application/json") -> None:
            data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _body(self) -> bytes:
            return self.rfile.read(int(self.headers.get("Content-Length", 0)))

        def do_POST(self) -> None:
            path, raw = self.path.split("?")[0], self._body()
            with state.lock:
                if path == "/v1/files":
                    return self._upload(raw)
                if path == "/v1/batches":
                    return self._create_openai(json.loads(raw))
                if path == "/v1/messages/batches":
                    return self._create_anthropic(json.loads(raw))
                if path.endswith("/cancel"):
                    batch = state.batches.get(path.split("/")[-2])
                    if batch is None:
                        return self._send(404, {"error": {"message": "no such batch"}})
                    if not batch["done"]:
                        batch["done"] = True
                        if batch["provider"] == "openai":
                            batch["info"].update(status="cancelled")
                        else:
                            batch["results"] = b""
                            batch["info"].update(processing_status="ended", cancel_initiated_at="2026-01-01T00:00:00Z")
                    return self._send(200, batch["info"])
            self._send(404, {"error": {"message": f"no route {path}"}})

        def do_GET(self) -> None:
            path = self.path.split("?")[0]
            with state.lock:
                if path in ("/v1/batches", "/v1/messages/batches"):
                    provider = "openai" if path == "/v1/batches" else "anthropic"
                    data = [b["info"] for b in reversed(state.created(provider))]
                    return self._send(200, {"object": "list", "data": data, "has_more": False,
                                            "first_id": data[0]["id"] if data else None,
                                            "last_id": data[-1]["id"] if data else None})
                parts = path.strip("/").split("/")
                if parts[:2] == ["v1", "files"] and len(parts) == 4 and parts[3] == "content":
                    return self._send(200, state.files[parts[2]], "application/octet-stream")
                if parts[:2] == ["v1", "batches"] and len(parts) == 3 and parts[2] in state.batches:
                    batch = state.batches[parts[2]]
                    state.advance(batch)
                    return self._send(200, batch["info"])
                if parts[:3] == ["v1", "messages", "batches"] and len(parts) >= 4 and parts[3] in state.batches:
                    batch = state.batches[parts[3]]
                    if len(parts) == 5 and parts[4] == "results":
                        return self._send(200, batch.get("results", b""), "application/binary")
                    state.advance(batch)
                    return self._send(200, batch["info"])
            self._send(404, {"error": {"message": f"no route {path}"}})

        def _upload(self, raw: bytes) -> None:
            message = BytesParser(policy=default_policy).parsebytes(
                b"Content-Type: " + self.headers["Content-Type"].encode() + b"\r\n\r\n" + raw)
            fields = {part.get_param("name", header="content-disposition"): part.get_payload(decode=True)
                      for part in message.iter_parts()}
            if fields.get("purpose") != b"batch":
                return self._send(400, {"error": {"message": "purpose must be batch"}})
            file_id = f"file-{next(state.ids)}"
            state.files[file_id] = fields["file"]
            self._send(200, {"id": file_id, "object": "file", "bytes": len(fields["file"]), "created_at": 0,
                             "filename": "batch.jsonl", "purpose": "batch", "status": "processed"})

        def _create_openai(self, body: dict[str, Any]) -> None:
            if body.get("endpoint") != "/v1/chat/completions" or body.get("completion_window") != "24h":
                return self._send(400, {"error": {"message": "bad endpoint or completion_window"}})
            lines = [json.loads(line) for line in state.files[body["input_file_id"]].decode().splitlines() if line]
            batch_id = f"batch_{next(state.ids)}"
            info = {"id": batch_id, "object": "batch", "endpoint": body["endpoint"], "errors": None,
                    "input_file_id": body["input_file_id"], "completion_window": "24h", "status": "in_progress",
                    "output_file_id": None, "error_file_id": None, "created_at": int(time.time()),
                    "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
                    "metadata": body.get("metadata")}
            state.batches[batch_id] = {"provider": "openai", "lines": lines, "info": info, "checks": 0, "done": False}
            self._send(200, info)

        def _create_anthropic(self, body: dict[str, Any]) -> None:
            batch_id = f"msgbatch_{next(state.ids)}"
            info = {"id": batch_id, "type": "message_batch", "processing_status": "in_progress",
                    "request_counts": {"processing": len(body["requests"]), "succeeded": 0, "errored": 0,
                                       "canceled": 0, "expired": 0},
                    "ended_at": None, "created_at": "2026-01-01T00:00:00Z", "expires_at": "2026-01-02T00:00:00Z",
                    "archived_at": None, "cancel_initiated_at": None,
                    "results_url": f"{state.base}/v1/messages/batches/{batch_id}/results"}
            state.batches[batch_id] = {"provider": "anthropic", "lines": body["requests"], "info": info, "checks": 0,
                                       "done": False}
            self._send(200, info)

    return Handler


@contextlib.contextmanager
def batch_server(responder: Responder, fault: Fault | None = None, polls: int = 1) -> Iterator[tuple[str, BatchState]]:
    """``(base_url, state)``: ``base_url + "/v1"`` is the OpenAI api_base, ``base_url`` Anthropic's."""
    state = BatchState(responder, fault, polls)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    state.base = f"http://127.0.0.1:{server.server_port}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield state.base, state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)

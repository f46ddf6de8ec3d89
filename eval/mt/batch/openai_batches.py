"""OpenAI's Batch API (and vLLM's OpenAI-compatible server) through the official ``openai`` client.

Documented flow: upload the requests as a JSONL file with ``purpose=batch`` (each line
``{custom_id, method: POST, url: /v1/chat/completions, body}``), create a batch on it with
``endpoint=/v1/chat/completions`` and ``completion_window=24h``, retrieve it until its status is
terminal (``completed``, ``failed``, ``expired``, ``cancelled``), then download its output file
(lines ``{custom_id, response: {status_code, body}}``) and error file (failed lines, with
``error`` or a non-200 ``response``). Limits: 50,000 requests and 200 MB per input file.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Iterator

from tribunal.eval.mt.batch.lines import BatchLine, Outcome

ENDPOINT = "/v1/chat/completions"
TERMINAL = {"completed", "failed", "expired", "cancelled"}


class OpenAIBatches:
    name = "openai"

    def __init__(self, api_base: str | None, api_key: str | None, max_requests: int = 50_000,
                 max_bytes: int = 200 * 1024 * 1024):
        import openai  # heavy: openai, pydantic

        self.client = openai.OpenAI(api_key=api_key, base_url=api_base, max_retries=5)
        self.max_requests, self.max_bytes = max_requests, max_bytes

    def body(self, request: Any) -> dict[str, Any]:
        """The chat-completions body DSPy's own OpenAI dialect would send online."""
        from dspy.clients.lm15_boundary import request_kwargs  # heavy: dspy, pydantic

        return {"model": request.model.partition("/")[2] or request.model, **request_kwargs(request, "chat")}

    def response(self, body: dict[str, Any], request: Any) -> Any:
        from dspy.lm15 import response_from_openai_chat  # heavy: dspy, pydantic

        return response_from_openai_chat(body, model=request.model)

    def submit(self, lines: list[BatchLine], note: Callable[[dict[str, Any]], None]) -> str:
        """Upload the input file (its id is noted first, so a crash before the batch exists loses nothing)."""
        data = "".join(json.dumps({"custom_id": line.custom_id, "method": "POST", "url": ENDPOINT, "body": line.body},
                                  ensure_ascii=False) + "\n" for line in lines).encode()
        upload = self.client.files.create(file=("tribunal-batch.jsonl", data), purpose="batch")
        note({"file": upload.id})
        return self._create(upload.id)

    def _create(self, file_id: str) -> str:
        batch = self.client.batches.create(input_file_id=file_id, endpoint=ENDPOINT, completion_window="24h",
                                           metadata={"source": "tribunal mt evaluate --batch"})
        return batch.id

    def recover(self, notes: dict[str, Any]) -> str | None:
        """The batch created from the noted input file (created now if it never was); None without a file."""
        file_id = notes.get("file")
        if not file_id:
            return None
        for batch in self.client.batches.list(limit=100):  # the SDK pages through every batch
            if batch.input_file_id == file_id:
                return batch.id
        return self._create(file_id)

    def ended(self, batch_id: str) -> tuple[bool, dict[str, Any]]:
        batch = self.client.batches.retrieve(batch_id)
        counts = batch.request_counts.model_dump() if batch.request_counts else {}
        return batch.status in TERMINAL, {"status": batch.status, **counts}

    def outcomes(self, batch_id: str) -> Iterator[Outcome]:
        """Outcomes of the lines the output and error files mention (others: see the batch status)."""
        batch = self.client.batches.retrieve(batch_id)
        for file_id in (batch.output_file_id, batch.error_file_id):
            if not file_id:
                continue
            for text in self.client.files.content(file_id).text.splitlines():
                if text.strip():
                    yield _outcome(json.loads(text))

    def failure(self, batch_id: str) -> str:
        """Why lines of an ended batch got no outcome (its status, and its validation errors if any)."""
        batch = self.client.batches.retrieve(batch_id)
        errors = [e.message for e in (batch.errors.data or [])] if batch.errors else []
        return f"batch {batch.status}" + (f": {'; '.join(m for m in errors if m)}" if errors else "")

    def cancel(self, batch_id: str) -> None:
        self.client.batches.cancel(batch_id)


def _outcome(line: dict[str, Any]) -> Outcome:
    response = line.get("response") or {}
    body = response.get("body") or {}
    if response.get("status_code") == 200 and body.get("choices"):
        return Outcome(line["custom_id"], response=body)
    error = line.get("error") or body.get("error") or {}
    message = error.get("message") if isinstance(error, dict) else str(error)
    code = error.get("code") if isinstance(error, dict) else None
    status = response.get("status_code")
    return Outcome(line["custom_id"], error=" ".join(str(p) for p in (status, code, message) if p) or "failed")

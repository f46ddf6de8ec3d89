"""Anthropic's Message Batches through the official ``anthropic`` client.

Documented flow: create a message batch (``requests: [{custom_id, params}]``, where ``params`` are
the Messages API parameters), retrieve it until ``processing_status`` is ``ended``, then read its
results (JSONL lines ``{custom_id, result: {type: succeeded | errored | canceled | expired, ...}}``
in any order). Limits: 100,000 requests and 256 MB per batch.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, Callable, Iterator

from tribunal.eval.mt.batch.lines import BatchLine, Outcome


class _NoTransport:
    def send(self, request):  # the dialect only converts here; it must never call out
        raise RuntimeError("conversion only")


# The dialect object wants some key; it only converts request bodies and never sends one (see _NoTransport).
_UNUSED_KEY = "unused: this object converts requests and never sends them"


def _dialect():
    from dspy.lm15 import AnthropicLM  # heavy: dspy, pydantic

    return AnthropicLM(api_key=_UNUSED_KEY, transport=_NoTransport())


class AnthropicBatches:
    name = "anthropic"

    def __init__(self, api_base: str | None, api_key: str | None, max_requests: int = 100_000,
                 max_bytes: int = 256 * 1024 * 1024):
        import anthropic  # heavy: anthropic, pydantic

        base = api_base.rstrip("/").removesuffix("/v1") if api_base else None
        self.client = anthropic.Anthropic(api_key=api_key, base_url=base, max_retries=5)
        self.max_requests, self.max_bytes = max_requests, max_bytes
        self.dialect = _dialect()

    def _wire(self, request: Any) -> Any:
        return replace(request, model=request.model.partition("/")[2] or request.model)

    def body(self, request: Any) -> dict[str, Any]:
        """The Messages API parameters DSPy's own Anthropic dialect would send online."""
        payload = self.dialect._payload(self._wire(request), stream=False)  # as dspy's lm15_boundary does
        payload.pop("stream", None)
        return payload

    def response(self, body: dict[str, Any], request: Any) -> Any:
        from dspy._vendor.lm15.providers.base import HttpResponse  # heavy: dspy, pydantic

        reply = HttpResponse(status=200, reason="OK", headers=[("content-type", "application/json")],
                             body=json.dumps(body).encode())
        return replace(self.dialect.parse_response(self._wire(request), reply), model=request.model)

    def submit(self, lines: list[BatchLine], note: Callable[[dict[str, Any]], None]) -> str:
        batch = self.client.messages.batches.create(
            requests=[{"custom_id": line.custom_id, "params": line.body} for line in lines])
        return batch.id

    def recover(self, notes: dict[str, Any]) -> str | None:
        return None  # a message batch is one call: nothing of an unacknowledged one is known

    def ended(self, batch_id: str) -> tuple[bool, dict[str, Any]]:
        batch = self.client.messages.batches.retrieve(batch_id)
        return batch.processing_status == "ended", {"status": batch.processing_status,
                                                     **batch.request_counts.model_dump()}

    def outcomes(self, batch_id: str) -> Iterator[Outcome]:
        for line in self.client.messages.batches.results(batch_id):
            result = line.result
            if result.type == "succeeded":
                yield Outcome(line.custom_id, response=result.message.model_dump(mode="json"))
            elif result.type == "errored":
                error = result.error.error
                yield Outcome(line.custom_id, error=f"errored {error.type}: {error.message}")
            else:
                yield Outcome(line.custom_id, error=result.type)

    def failure(self, batch_id: str) -> str:
        batch = self.client.messages.batches.retrieve(batch_id)
        return f"batch {batch.processing_status}, no result for the request"

    def cancel(self, batch_id: str) -> None:
        self.client.messages.batches.cancel(batch_id)

"""What a batch provider does, and the registry of providers by model prefix (``openai/``, ``anthropic/``).

A provider turns DSPy's canonical request into its own request body (the same body its online
API gets, so answers and scores match an online run), submits lines as one provider batch, reports
whether a batch has ended, and yields each line's outcome: the response body, or why it failed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Protocol


@dataclass(frozen=True)
class BatchLine:
    """One request of a batch: its ``custom_id`` is the request key (identical requests share it)."""

    custom_id: str
    body: dict[str, Any]

    def size(self) -> int:
        """Bytes of the line in a JSONL input file (an upper bound for the JSON of a message batch)."""
        return len(json.dumps({"custom_id": self.custom_id, "body": self.body}, ensure_ascii=False).encode()) + 80


@dataclass(frozen=True)
class Outcome:
    """A line's result: a ``response`` body, or the ``error`` that kept it from one."""

    custom_id: str
    response: dict[str, Any] | None = None
    error: str | None = None


class BatchProvider(Protocol):
    name: str
    max_requests: int
    max_bytes: int

    def body(self, request: Any) -> dict[str, Any]: ...

    def response(self, body: dict[str, Any], request: Any) -> Any: ...

    def submit(self, lines: list[BatchLine], note: Callable[[dict[str, Any]], None]) -> str: ...

    def recover(self, notes: dict[str, Any]) -> str | None: ...

    def ended(self, batch_id: str) -> tuple[bool, dict[str, Any]]: ...

    def outcomes(self, batch_id: str) -> Iterator[Outcome]: ...

    def cancel(self, batch_id: str) -> None: ...


def split(lines: list[BatchLine], max_requests: int, max_bytes: int) -> list[list[BatchLine]]:
    """Consecutive chunks within both limits (a line larger than ``max_bytes`` goes alone)."""
    chunks: list[list[BatchLine]] = []
    current: list[BatchLine] = []
    size = 0
    for line in lines:
        line_size = line.size()
        if current and (len(current) >= max_requests or size + line_size > max_bytes):
            chunks.append(current)
            current, size = [], 0
        current.append(line)
        size += line_size
    if current:
        chunks.append(current)
    return chunks


PREFIXES = {"openai": "openai", "anthropic": "anthropic"}


def provider_of(model: str) -> tuple[str, str]:
    """``("openai", "gpt-4o-mini")`` for ``openai/gpt-4o-mini``; a clear error for other providers."""
    head, _, wire = model.partition("/")
    if head not in PREFIXES or not wire:
        raise ValueError(f"--batch supports openai/... (also vLLM's OpenAI-compatible server) and anthropic/... "
                         f"models, not {model!r}")
    return PREFIXES[head], wire


def make_provider(name: str, api_base: str | None, api_key: str | None, **limits: int) -> BatchProvider:
    """The batch client for provider ``name`` (``openai`` or ``anthropic``)."""
    if name == "openai":
        from tribunal.eval.mt.batch.openai_batches import OpenAIBatches

        return OpenAIBatches(api_base, api_key, **limits)
    from tribunal.eval.mt.batch.anthropic_batches import AnthropicBatches

    return AnthropicBatches(api_base, api_key, **limits)

"""The registry of batch providers by model prefix (``openai/``, ``anthropic/``), and how lines are split into batches.

A provider (:class:`~tribunal.eval.mt.batch.lines.BatchProvider`) turns DSPy's canonical request into
its own request body (the same body its online API gets, so answers and scores match an online run),
submits lines as one provider batch, reports whether a batch has ended, and yields each line's
outcome: the response body, or why it failed.
"""

from __future__ import annotations

from typing import Callable

from tribunal.eval.mt.batch.anthropic_batches import AnthropicBatches
from tribunal.eval.mt.batch.lines import BatchLine, BatchProvider
from tribunal.eval.mt.batch.openai_batches import OpenAIBatches


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
    return CLIENTS[name](api_base, api_key, **limits)


CLIENTS: dict[str, Callable[..., BatchProvider]] = {"openai": OpenAIBatches, "anthropic": AnthropicBatches}
"""The batch client of each provider (each imports its SDK only when it first talks to the provider)."""

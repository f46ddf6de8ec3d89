"""Spend of a batch run at the batch price, from LiteLLM's bundled price table.

LiteLLM lists ``input_cost_per_token_batches`` / ``output_cost_per_token_batches`` for models whose
batch price it knows; otherwise the batch price is half the online one (the discount both OpenAI
and Anthropic document for their batch APIs). Unknown models have no dollar figure (None).
"""

from __future__ import annotations

from typing import Any


def tokens(provider: str, body: dict[str, Any]) -> tuple[int, int]:
    """``(input, output)`` tokens of a response body (OpenAI ``usage.prompt_tokens``, Anthropic ``input_tokens``)."""
    usage = body.get("usage") or {}
    if provider == "anthropic":
        return int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)
    return int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)


def batch_rates(model: str) -> tuple[float, float] | None:
    """US dollars per input and output token at the batch price, or None for an unknown model."""
    import litellm  # heavy: litellm, openai

    wire = model.partition("/")[2] or model
    info = litellm.model_cost.get(model) or litellm.model_cost.get(wire)
    if not info or info.get("input_cost_per_token") is None:
        return None
    online_in, online_out = info["input_cost_per_token"], info.get("output_cost_per_token") or 0.0
    return (info.get("input_cost_per_token_batches", online_in / 2),
            info.get("output_cost_per_token_batches", online_out / 2))


def batch_spend(model: str, input_tokens: int, output_tokens: int) -> float | None:
    rates = batch_rates(model)
    return None if rates is None else input_tokens * rates[0] + output_tokens * rates[1]

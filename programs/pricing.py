"""US-dollar spend from token counts, with LiteLLM's bundled price table (offline: never fetched).

The table is the JSON file shipped inside the installed ``litellm`` package
(``model_prices_and_context_window_backup.json``), read directly, without importing LiteLLM (whose
import is slow and, without ``LITELLM_LOCAL_MODEL_COST_MAP``, goes to the network). A model the
table does not know (a local vLLM or Ollama model, a custom gateway name) has no price: the spend
is reported as unknown, never as zero.
"""

from __future__ import annotations

import functools
import importlib.util
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

PRICE_FILE = "model_prices_and_context_window_backup.json"


@functools.lru_cache(maxsize=1)
def _table_text() -> str:
    """The bundled table's text ('' when LiteLLM is not installed or the file is unreadable)."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return ""
    try:
        return (Path(list(spec.submodule_search_locations)[0]) / PRICE_FILE).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


@functools.lru_cache(maxsize=1)
def price_table() -> dict[str, dict]:
    """LiteLLM's bundled table (``{}`` when LiteLLM is not installed)."""
    try:
        table = json.loads(_table_text() or "{}")
    except ValueError:
        return {}
    return {k: v for k, v in table.items() if isinstance(v, dict)} if isinstance(table, dict) else {}


def model_prices(model: str) -> dict | None:
    """The table entry of a LiteLLM/DSPy model name (``openai/gpt-4o-mini`` or ``gpt-4o-mini``)."""
    provider, _, bare = model.partition("/")
    names = [key for key in (model, bare) if key]
    if not any(json.dumps(key) in _table_text() for key in names):
        return None  # not in the table: no need to parse its megabyte of JSON (25 ms)
    table = price_table()
    for key in names:
        entry = table.get(key)
        if entry and entry.get("input_cost_per_token") is not None:
            if key == bare and entry.get("litellm_provider") not in (None, provider) and \
                    not str(entry.get("litellm_provider", "")).startswith(provider):
                continue  # the bare name belongs to another provider's model
            return entry
    return None


@dataclass
class Spend:
    """Dollars for the priced models, and the models without a price."""

    usd: float = 0.0
    unpriced: list[str] = field(default_factory=list)
    priced: list[str] = field(default_factory=list)

    @property
    def dollars(self) -> str:
        """The amount, with enough decimals to show a cent's fraction (small test runs cost that)."""
        return f"${self.usd:.4f}" if self.usd >= 0.01 or self.usd == 0 else f"${self.usd:.6f}"

    @property
    def known(self) -> bool:
        return not self.unpriced

    def describe(self) -> str:
        if not self.unpriced and not self.priced:
            return "$0 (no call was answered by the provider)"
        if not self.unpriced:
            return f"{self.dollars} (LiteLLM's bundled price table)"
        missing = ", ".join(self.unpriced)
        if self.usd:
            return f"{self.dollars} for the priced models; unknown for {missing} (not in LiteLLM's price table)"
        return f"unknown ({missing} not in LiteLLM's price table)"


def spend(prompt_tokens: Mapping[str, int], completion_tokens: Mapping[str, int], batch: bool = False) -> Spend:
    """The spend of per-model token counts; ``batch`` uses the table's batch-API prices where it has them."""
    result = Spend()
    for model in sorted(set(prompt_tokens) | set(completion_tokens)):
        entry = model_prices(model)
        if entry is None:
            if prompt_tokens.get(model) or completion_tokens.get(model):
                result.unpriced.append(model)
            continue
        if prompt_tokens.get(model) or completion_tokens.get(model):
            result.priced.append(model)
        input_price, output_price = entry_rates(entry, batch)
        result.usd += prompt_tokens.get(model, 0) * input_price + completion_tokens.get(model, 0) * output_price
    return result


def entry_rates(entry: dict, batch: bool = False) -> tuple[float, float]:
    """Dollars per input and output token of a table entry; ``batch``: the table's batch-API prices, else half
    the online ones (the discount OpenAI and Anthropic document for their batch APIs)."""
    online_in, online_out = entry["input_cost_per_token"], entry.get("output_cost_per_token") or 0.0
    if not batch:
        return online_in, online_out
    return (entry.get("input_cost_per_token_batches", online_in / 2),
            entry.get("output_cost_per_token_batches", online_out / 2))


def token_rates(model: str, batch: bool = False) -> tuple[float, float] | None:
    """Dollars per input and output token of a model (at the batch price with ``batch``); None if unpriced."""
    entry = model_prices(model)
    return None if entry is None else entry_rates(entry, batch)

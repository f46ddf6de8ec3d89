"""Batch prices come from the one reader of LiteLLM's bundled table (tribunal.programs.pricing)."""

from __future__ import annotations

import pytest

from tribunal.eval.mt.batch.pricing import batch_rates, batch_spend
from tribunal.programs.pricing import model_prices, price_table, spend, token_rates


@pytest.mark.parametrize("model", ["openai/gpt-4o-mini", "gpt-4o-mini", "anthropic/claude-3-5-haiku-20241022"])
def test_batch_rates_are_the_pricing_modules(model):
    if model_prices(model) is None:
        pytest.skip(f"{model} not in this LiteLLM's table")
    rates = batch_rates(model)
    assert rates == token_rates(model, batch=True)
    entry = model_prices(model)
    assert rates[0] == entry.get("input_cost_per_token_batches", entry["input_cost_per_token"] / 2)
    assert batch_spend(model, 1000, 100) == pytest.approx(spend({model: 1000}, {model: 100}, batch=True).usd)


def test_an_unknown_model_has_no_batch_price():
    assert batch_rates("openai/no-such-model-xyz") is None and batch_spend("openai/no-such-model-xyz", 1, 1) is None


def test_a_bare_name_of_another_providers_model_is_not_priced():
    """The online and the batch spend agree: a name is priced by its own provider's entry only."""
    bare = next(k for k, v in price_table().items() if "/" not in k and v.get("litellm_provider") == "anthropic"
                and v.get("input_cost_per_token") is not None and f"openai/{k}" not in price_table())
    assert model_prices(f"openai/{bare}") is None
    assert batch_rates(f"openai/{bare}") is None


def test_a_model_the_table_does_not_name_is_unpriced_without_parsing_the_table():
    from tribunal.programs import pricing

    pricing.price_table.cache_clear()
    assert pricing.model_prices("openai/bench-judge-not-a-real-model") is None
    assert pricing.price_table.cache_info().currsize == 0  # the megabyte of JSON was never parsed
    if pricing._table_text():
        known = next(k for k, v in pricing.price_table().items() if v.get("input_cost_per_token") is not None)
        assert pricing.model_prices(known) == pricing.price_table()[known]

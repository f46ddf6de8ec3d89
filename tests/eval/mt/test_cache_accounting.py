"""Honest cost: calls the provider answered vs answers served by the response cache, checked against
the loopback server's own request count; the endpoint is part of the cache key."""

from __future__ import annotations

import pytest

from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tribunal.eval.mt.job import run_evaluation
from tribunal.eval.tracking.mlflow_run import TrackingSettings

from .helpers import KEY_ENV, SECRET, loopback_config


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    """DSPy's response cache in a folder of this test's own (never the machine's shared one)."""
    from tests.support.dspy_cache import private_dspy_cache

    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    with private_dspy_cache(tmp_path / "dspy-cache"):
        yield


def _evaluate(api_base, out, cache: bool):
    config = loopback_config(api_base, out, limit=6, concurrency=4)
    # server hits are compared with calls: no timeout retry under a loaded machine may add a hit
    config = config.model_copy(update={"lm": config.lm.model_copy(update={"cache": cache, "timeout": 30.0})})
    return run_evaluation(config, TrackingSettings(enabled=False)).summary


def test_cached_answers_are_counted_apart_and_cost_nothing(tmp_path, private_cache):
    with loopback_server(synthetic_judge) as (api_base, state):
        first = _evaluate(api_base, tmp_path / "first", cache=True)
        hits_after_first = len(state.hits)
        second = _evaluate(api_base, tmp_path / "second", cache=True)  # another folder: no journal to resume
        hits_after_second = len(state.hits)
        third = _evaluate(api_base, tmp_path / "third", cache=False)

    assert first["lm_calls_paid"] == hits_after_first > 0 and first["lm_calls_cached"] == 0
    assert first["prompt_tokens"] > 0 and first["cost"].startswith("unknown")  # a local model has no list price
    assert hits_after_second == hits_after_first  # nothing reached the server ...
    assert second["lm_calls_cached"] == second["lm_calls"] == first["lm_calls"]  # ... and the summary says so
    assert second["lm_calls_paid"] == 0 and second["prompt_tokens"] == 0 and second["completion_tokens"] == 0
    assert third["lm_calls_paid"] == len(state.hits) - hits_after_second == first["lm_calls"]
    assert third["lm_calls_cached"] == 0


def test_another_endpoint_is_never_answered_from_the_first_ones_cache(tmp_path, private_cache):
    with loopback_server(synthetic_judge) as (first_base, first), loopback_server(synthetic_judge) as (second_base, second):
        one = _evaluate(first_base, tmp_path / "one", cache=True)
        two = _evaluate(second_base, tmp_path / "two", cache=True)
    assert len(first.hits) == one["lm_calls_paid"] > 0
    assert len(second.hits) == two["lm_calls_paid"] == one["lm_calls_paid"] and two["lm_calls_cached"] == 0


def test_the_journal_signature_names_the_endpoint(tmp_path):
    a = loopback_config("http://127.0.0.1:8001/v1", tmp_path).config_signature()
    b = loopback_config("http://user:secret@127.0.0.1:8002/v1?key=x", tmp_path).config_signature()
    assert "endpoint:http\\://127.0.0.1\\:8001/v1" in a and "endpoint:http\\://127.0.0.1\\:8002/v1" in b  # ":" escaped
    assert "secret" not in b and "key=x" not in b


def test_spend_in_dollars_for_a_model_the_price_table_knows():
    from tribunal.programs.pricing import model_prices, spend

    prices = model_prices("openai/gpt-4o-mini")
    assert prices is not None
    cost = spend({"openai/gpt-4o-mini": 1_000_000}, {"openai/gpt-4o-mini": 2_000})
    expected = 1_000_000 * prices["input_cost_per_token"] + 2_000 * prices["output_cost_per_token"]
    assert cost.known and cost.usd == pytest.approx(expected) and cost.describe().startswith("$")
    unknown = spend({"openai/my-local-qwen": 10}, {"openai/my-local-qwen": 5})
    assert not unknown.known and "my-local-qwen" in unknown.describe()

"""An OpenAI-compatible server that is not OpenAI, as it is: token limit, JSON formats, timeouts, n > 1."""

from __future__ import annotations

import json

import dspy
import pytest

from tests.support.dspy_cache import dspy_cache_off
from tests.support.llama_like_server import llama_like_server
from tribunal.programs.answers import tolerant_answers
from tribunal.programs.lm import DEFAULT_SERVER_MAX_TOKENS, LMSettings, build_lm, effective_max_tokens
from tribunal.programs.server_engine import json_step


class Greeting(dspy.Signature):
    """Greet the person."""

    name: str = dspy.InputField()
    greeting: str = dspy.OutputField()


def _json_answer(body: dict) -> str:
    return json.dumps({"greeting": "hello"})


def test_the_token_limit_goes_out_as_max_tokens_with_the_server_default():
    with llama_like_server(lambda body: "hi") as (api_base, state), dspy_cache_off():
        build_lm(LMSettings(model="openai/some-model", api_base=api_base, cache=False))("say hi")
        build_lm(LMSettings(model="openai/some-model", api_base=api_base, max_tokens=77, cache=False))("say hi")
    first, second = state.bodies
    assert first["max_tokens"] == DEFAULT_SERVER_MAX_TOKENS and "max_completion_tokens" not in first
    assert second["max_tokens"] == 77 and "max_completion_tokens" not in second
    assert first["model"] == "some-model" and "n" not in first


def test_a_hosted_provider_keeps_its_own_limit():
    assert effective_max_tokens(LMSettings(model="openai/gpt-4o-mini")) is None
    assert effective_max_tokens(LMSettings(model="openai/x", api_base="http://127.0.0.1:1/v1")) == DEFAULT_SERVER_MAX_TOKENS
    assert effective_max_tokens(LMSettings(model="openai/gpt-4o-mini", max_tokens=5)) == 5


def test_a_server_refusing_json_schema_is_asked_with_json_object_and_remembered():
    with llama_like_server(_json_answer) as (api_base, state), dspy_cache_off():
        lm = build_lm(LMSettings(model="openai/some-model", api_base=api_base, cache=False))
        with dspy.context(lm=lm, adapter=dspy.JSONAdapter()), tolerant_answers():
            first = dspy.Predict(Greeting)(name="Ann")
            second = dspy.Predict(Greeting)(name="Bob")
    assert first.greeting == second.greeting == "hello"
    formats = [body.get("response_format", {}).get("type") for body in state.bodies]
    # one refused json_schema, then every call asks json_object (with the schema) directly: no retries of the 500
    assert formats == ["json_schema", "json_object", "json_object"]
    assert state.statuses == [500, 200, 200]
    assert state.bodies[2]["response_format"]["schema"]["required"] == ["greeting"]
    assert json_step(api_base) == "json_object+schema"


def test_n_above_one_is_one_request_per_answer():
    with llama_like_server(lambda body: "hi") as (api_base, state), dspy_cache_off():
        answers = build_lm(LMSettings(model="openai/some-model", api_base=api_base, cache=False))("say hi", n=3)
    assert len(answers) == 3 and len(state.bodies) == 3
    assert all("n" not in body for body in state.bodies)


def test_a_timeout_names_the_option_that_raises_it():
    with llama_like_server(lambda body: "hi", latency=3.0) as (api_base, _), dspy_cache_off():
        lm = build_lm(LMSettings(model="openai/some-model", api_base=api_base, timeout=0.5, num_retries=0,
                                 cache=False))
        with pytest.raises(dspy.utils.exceptions.LMError) as caught:  # a read timeout is a transport error
            lm("say hi")
    message = str(caught.value)
    assert "--timeout S" in message and "Timeouts(read" not in message


def test_the_cache_key_holds_the_engine_endpoint(tmp_path):
    from tests.support.dspy_cache import swapped_cache

    with llama_like_server(lambda body: "first") as (one, first), llama_like_server(lambda body: "second") as (two, _), \
            swapped_cache(tmp_path):
        assert build_lm(LMSettings(model="openai/m", api_base=one))("hi") == ["first"]
        assert build_lm(LMSettings(model="openai/m", api_base=two))("hi") == ["second"]  # not the first server's
        assert build_lm(LMSettings(model="openai/m", api_base=one))("hi") == ["first"]
    assert len(first.bodies) == 1  # the repeat came from the cache

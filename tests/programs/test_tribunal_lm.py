"""tribunal's own LM: its calls are watched, keyed by endpoint and evictable; a plain dspy.LM's are not touched."""

from __future__ import annotations

import warnings

import dspy

from tests.support.dspy_cache import private_dspy_cache
from tests.support.scripted_lm import ScriptedEngine
from tribunal.programs.answers.provider_calls import watching
from tribunal.programs.lm import LMSettings, build_lm
from tribunal.programs.response_cache import ENDPOINT_FIELD, EndpointKeyedCall
from tribunal.programs.tribunal_lm import TribunalLM


def _engine() -> ScriptedEngine:
    return ScriptedEngine(lambda system, user: "hello")


def test_its_calls_are_recorded_inside_watching_and_a_plain_lms_are_not(tmp_path):
    engine = _engine()
    ours = build_lm(LMSettings(model="openai/m", cache=False), engine)
    plain = dspy.LM("openai/m", engine=engine, cache=False)
    with watching() as seen:
        assert ours("hi") == ["hello"] and plain("hi") == ["hello"]
    assert isinstance(ours, TribunalLM) and len(seen) == 1 and seen[0].lm is ours
    assert seen[0].finish_reason == "stop" and not seen[0].from_cache
    ours("hi")
    assert len(seen) == 1  # nothing is recorded outside the context


def test_an_evicted_answer_is_asked_again_and_the_key_names_the_endpoint(tmp_path):
    engine = _engine()
    engine.cache_endpoint = "http://one.example/v1"
    with private_dspy_cache(tmp_path / "cache"):
        lm = build_lm(LMSettings(model="openai/m", cache=True), engine)
        with watching() as seen:
            lm("hi")
            lm("hi")
        assert len(engine.calls) == 1 and [call.from_cache for call in seen] == [False, True]
        assert isinstance(seen[0].call, EndpointKeyedCall)
        assert seen[0].call.key(lm, False)[ENDPOINT_FIELD] == "http://one.example/v1"
        seen[1].evict()
        lm("hi")
        assert len(engine.calls) == 2  # the evicted answer was not served again
        lm("hi")
        assert len(engine.calls) == 2  # ... and the new one is cached as usual


def test_the_rollout_warning_is_not_said_for_its_reasks_but_still_for_a_plain_lm():
    engine = _engine()
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        build_lm(LMSettings(model="openai/m", cache=False), engine)("hi", rollout_id=3)
        assert not said
        dspy.LM("openai/m", engine=engine, cache=False, temperature=0.0)("hi", rollout_id=3)
    assert [str(w.message) for w in said if "rollout_id" in str(w.message)]

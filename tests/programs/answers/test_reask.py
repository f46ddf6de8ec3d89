"""The re-ask rule through a real ``dspy.Predict`` over loopback HTTP, with DSPy's cache on (in a folder of its own).

Each unusable kind (a refusal, JSON with the wrong keys, an answer cut at ``finish_reason: "length"``,
a value that breaks its schema) is re-asked once and the second answer is used; the unusable answer is
never left in the cache, so asking again reaches the server; the meter counts the re-ask apart; an answer
that stays unusable fails with a one-line reason naming its kind.
"""

from __future__ import annotations

import json

import dspy
import pytest

from tests.support.dspy_cache import private_dspy_cache
from tests.support.loopback import REFUSAL, loopback_server
from tribunal.runner.meter import UsageMeter, attach_relay, metering
from tribunal.programs.answers import (
    RefusedAnswer,
    TruncatedAnswer,
    UnreadableAnswer,
    UnusableAnswer,
    ask,
    asks_of,
    tolerant_answers,
)
from tribunal.programs.answers.reask import FEEDBACK_OPENING
from tribunal.programs.lm import LMSettings, build_lm
from tribunal.signatures.hyp_workflow import ProposeHypotheses

GOOD = ('[[ ## hypotheses ## ]]\n[{"statement": "s", "explanation": "e", "causal_chain": ["a", "b", "c"]}]'
        '\n\n[[ ## completed ## ]]')
SHORT_CHAIN = '[[ ## hypotheses ## ]]\n[{"statement": "s", "explanation": "e", "causal_chain": ["a"]}]'
INPUTS = dict(research_question="q", observed_finding="f", evidence="", opening_hypothesis="o", max_hypotheses=1)
KINDS = ["refusal", "wrong-keys", "truncated", "invalid"]
EXPECTED = {"refusal": "refusal", "wrong-keys": "unparseable", "truncated": "truncated", "invalid": "invalid"}
FINAL = {"refusal": RefusedAnswer, "wrong-keys": UnreadableAnswer, "truncated": TruncatedAnswer,
         "invalid": UnusableAnswer}


class Peer:
    """Answers ProposeHypotheses; the first ``bad`` hits are unusable of ``kind``."""

    def __init__(self, kind: str, bad: int):
        self.kind, self.bad, self.seen = kind, bad, 0

    def respond(self, body):
        self.seen += 1
        invalid = self.kind == "invalid" and self.seen <= self.bad
        return "ProposeHypotheses", SHORT_CHAIN if invalid else GOOD

    def bad_answer(self, body):
        return self.kind if self.kind != "invalid" and self.seen <= self.bad else None


def _ask(api_base, reasks=None, meter=None):
    settings = LMSettings(model="openai/reask-peer", api_base=api_base, max_tokens=100, num_retries=0, timeout=30.0,
                          **({"reasks": reasks} if reasks is not None else {}))
    lm = attach_relay(build_lm(settings))
    with dspy.context(lm=lm), tolerant_answers(), metering(meter or UsageMeter()):
        return ask(dspy.Predict(ProposeHypotheses), role="proposer", **INPUTS)


def _cached_texts() -> str:
    cache = dspy.cache
    values = list(cache.memory_cache.values()) + [cache.disk_cache[key] for key in cache.disk_cache]
    return json.dumps([repr(v) for v in values])


@pytest.fixture
def api_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback-not-a-secret")


@pytest.mark.parametrize("kind", KINDS)
def test_an_unusable_answer_is_reasked_once_and_the_second_answer_is_used(kind, tmp_path, api_key):
    peer = Peer(kind, bad=1)
    meter = UsageMeter()
    with private_dspy_cache(tmp_path / "cache"), loopback_server(respond_raw=peer.respond,
                                                                 bad_answer=peer.bad_answer) as (api_base, state):
        out = _ask(api_base, meter=meter)
        assert out.hypotheses[0].causal_chain == ["a", "b", "c"] and asks_of(out) == 2
        assert len(state.hits) == 2
        first, second = (json.loads(body) for body in state.bodies)
        if kind == "truncated":  # asked again with twice the token limit, no feedback
            limit = "max_tokens" if "max_tokens" in first else "max_completion_tokens"  # the field the server honours
            assert second[limit] == 2 * first[limit] == 200
            assert second["messages"] == first["messages"]
        else:  # the unusable answer, then one line saying what was wrong with it
            assert second["messages"][:-2] == first["messages"]
            shown, feedback = second["messages"][-2:]
            assert shown["role"] == "assistant" and feedback["content"].startswith(FEEDBACK_OPENING)
            assert "\n" not in feedback["content"].split(". Answer again")[0]
            if kind == "refusal":
                assert shown["content"] == REFUSAL and "none of the fields" in feedback["content"]
            if kind == "invalid":
                assert "causal_chain has 1 item; it needs at least 3" in feedback["content"]
        summary = meter.summary()
        assert summary["calls"]["other"] == 2 and summary["reasks"]["other"] == 1  # stage "other": no MT role
        assert summary["reask_kinds"] == {EXPECTED[kind]: 1}
        # the cache holds no unusable answer: the same ask reaches the server again, and is used at once
        assert REFUSAL not in _cached_texts() and '"confidence"' not in _cached_texts()
        again = _ask(api_base)
        assert asks_of(again) == 1 and len(state.hits) == 3


@pytest.mark.parametrize("kind", KINDS)
def test_an_answer_that_stays_unusable_fails_with_a_one_line_reason(kind, tmp_path, api_key):
    peer = Peer(kind, bad=10**6)
    with private_dspy_cache(tmp_path / "cache"), loopback_server(respond_raw=peer.respond,
                                                                 bad_answer=peer.bad_answer) as (api_base, state):
        with pytest.raises(UnusableAnswer) as raised:
            _ask(api_base)
        # two re-asks by default, whatever the kind (a cut answer's with a raised limit)
        assert len(state.hits) == 3
        assert _cached_texts().count("causal_chain") == 0  # nothing of the unusable answers was kept
    err = raised.value
    assert type(err) is FINAL[kind] and err.kind == EXPECTED[kind]
    assert err.lm_response and "\n" not in str(err) and "http" not in str(err)
    if kind == "truncated":
        assert err.label == "truncated at max_tokens=400 (raise it with --max-tokens)"
    if kind == "refusal":
        assert err.label == "refusal" and REFUSAL in str(err) and "asked 3 times" in str(err)
    if kind == "invalid":
        assert err.label == "invalid answer"
        assert "hypotheses[0].causal_chain has 1 item; it needs at least 3" in str(err)


def test_answers_cut_again_and_again_are_reasked_within_the_same_budget(tmp_path, api_key):
    """Cut twice, then whole: the limit doubles on each re-ask (100, 200, 400), up to 4x the run's own."""
    peer = Peer("truncated", bad=2)
    with private_dspy_cache(tmp_path / "cache"), loopback_server(respond_raw=peer.respond,
                                                                 bad_answer=peer.bad_answer) as (api_base, state):
        out = _ask(api_base)
        assert asks_of(out) == 3 and out.hypotheses[0].causal_chain == ["a", "b", "c"]
        bodies = [json.loads(body) for body in state.bodies]
    limit = "max_tokens" if "max_tokens" in bodies[0] else "max_completion_tokens"
    assert [b[limit] for b in bodies] == [100, 200, 400]
    assert all(b["messages"] == bodies[0]["messages"] for b in bodies)  # no feedback: a cut answer is not wrong


def test_a_cut_answer_limit_stops_at_four_times_the_run_limit(tmp_path, api_key):
    peer = Peer("truncated", bad=10**6)
    with private_dspy_cache(tmp_path / "cache"), loopback_server(respond_raw=peer.respond,
                                                                 bad_answer=peer.bad_answer) as (api_base, state):
        with pytest.raises(TruncatedAnswer) as raised:
            _ask(api_base, reasks=4)
        bodies = [json.loads(body) for body in state.bodies]
    limit = "max_tokens" if "max_tokens" in bodies[0] else "max_completion_tokens"
    assert [b[limit] for b in bodies] == [100, 200, 400, 400, 400]
    assert raised.value.asks == 5 and "asked 5 times" in str(raised.value)


def test_no_reasks_asks_once(tmp_path, api_key):
    peer = Peer("refusal", bad=1)
    with private_dspy_cache(tmp_path / "cache"), loopback_server(respond_raw=peer.respond,
                                                                 bad_answer=peer.bad_answer) as (api_base, state):
        with pytest.raises(RefusedAnswer, match="asked once"):
            _ask(api_base, reasks=0)
        assert len(state.hits) == 1


def test_a_check_that_refuses_the_answer_gets_it_reasked_with_its_reason(tmp_path, api_key):
    peer = Peer("none", bad=0)
    seen = []

    def check(out):
        seen.append(out)
        if len(seen) == 1:
            raise UnusableAnswer("it gave 2 labels for 3 demands")

    with loopback_server(respond_raw=peer.respond) as (api_base, state):
        lm = build_lm(LMSettings(model="openai/reask-peer", api_base=api_base, cache=False, num_retries=0))
        with dspy.context(lm=lm), tolerant_answers():
            out = ask(dspy.Predict(ProposeHypotheses), check=check, **INPUTS)
        feedback = json.loads(state.bodies[1])["messages"][-1]["content"]
    assert asks_of(out) == 2 and len(seen) == 2
    assert feedback.startswith(f"{FEEDBACK_OPENING} it gave 2 labels for 3 demands. Answer again.")

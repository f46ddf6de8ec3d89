"""A runaway is re-asked at the same token limit with one line of feedback; a long fresh cut answer at twice it.

Through a real ``dspy.Predict`` over the loopback HTTP server (:mod:`tests.support.loopback`): the peer
answers the loops the bundled model really gave (``cut_answers/loop_*.txt``) or a long answer that says
something new (``cut_answers/fresh_*.txt``), cut at the token limit (``finish_reason: "length"``), then a
usable answer. The usage meter counts the calls, the re-asks and the runaways apart.
"""

from __future__ import annotations

import json
from pathlib import Path

import dspy
import pytest

from tests.support.dspy_cache import private_dspy_cache
from tests.support.loopback import loopback_server
from tribunal.programs.answers import ask, asks_of, tolerant_answers
from tribunal.programs.answers.reask import FEEDBACK_OPENING, RUNAWAY_FEEDBACK
from tribunal.programs.answers.unusable import RunawayAnswer, TruncatedAnswer
from tribunal.programs.lm import LMSettings, build_lm
from tribunal.runner.meter import UsageMeter, attach_relay, metering
from tribunal.signatures.hyp_workflow import ProposeHypotheses

FOLDER = Path(__file__).parent / "cut_answers"
LOOP = sorted(FOLDER.glob("loop_*.txt"))[0].read_text(encoding="utf-8")
FRESH = sorted(FOLDER.glob("fresh_*.txt"))[0].read_text(encoding="utf-8")
GOOD = ('[[ ## hypotheses ## ]]\n[{"statement": "s", "explanation": "e", "causal_chain": ["a", "b", "c"]}]'
        '\n\n[[ ## completed ## ]]')
INPUTS = dict(research_question="q", observed_finding="f", evidence="", opening_hypothesis="o", max_hypotheses=1)


class CuttingPeer:
    """Its first answers are ``cut`` (in order, each with ``finish_reason: "length"``), then :data:`GOOD`."""

    def __init__(self, *cut: str):
        self.cut, self.seen = list(cut), 0

    def respond(self, body):
        self.seen += 1
        return "ProposeHypotheses", self.cut[self.seen - 1] if self.seen <= len(self.cut) else GOOD

    def bad_answer(self, body):
        return "cut" if self.seen <= len(self.cut) else None


@pytest.fixture
def api_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback-not-a-secret")


def _run(peer, tmp_path, reasks=2):
    meter = UsageMeter()
    settings = LMSettings(model="openai/runaway-peer", api_base="", max_tokens=100, num_retries=0, timeout=30.0,
                          reasks=reasks)
    with private_dspy_cache(tmp_path / "cache"), loopback_server(respond_raw=peer.respond,
                                                                 bad_answer=peer.bad_answer) as (api_base, state):
        lm = attach_relay(build_lm(settings.model_copy(update={"api_base": api_base})))
        with dspy.context(lm=lm), tolerant_answers(), metering(meter):
            try:
                out, err = ask(dspy.Predict(ProposeHypotheses), role="proposer", **INPUTS), None
            except TruncatedAnswer as raised:
                out, err = None, raised
        bodies = [json.loads(body) for body in state.bodies]
    limit = "max_tokens" if "max_tokens" in bodies[0] else "max_completion_tokens"
    return out, err, bodies, [b[limit] for b in bodies], meter.summary()


def test_a_loop_is_reasked_at_the_same_limit_with_one_line_of_feedback(tmp_path, api_key):
    out, _, bodies, limits, summary = _run(CuttingPeer(LOOP), tmp_path)
    assert asks_of(out) == 2 and limits == [100, 100]
    assert bodies[1]["messages"][:-1] == bodies[0]["messages"]  # one turn more: the loop is not shown back
    feedback = bodies[1]["messages"][-1]
    assert feedback["role"] == "user"
    assert feedback["content"].startswith(f"{FEEDBACK_OPENING} {RUNAWAY_FEEDBACK}. Answer again.")
    assert summary["calls"]["other"] == 2 and summary["reasks"]["other"] == 1
    assert summary["runaways"] == {"other": 1, "other/other": 1} and summary["reask_kinds"] == {"runaway": 1}


def test_a_long_fresh_cut_answer_gets_the_larger_limit_and_no_feedback(tmp_path, api_key):
    out, _, bodies, limits, summary = _run(CuttingPeer(FRESH), tmp_path)
    assert asks_of(out) == 2 and limits == [100, 200]
    assert bodies[1]["messages"] == bodies[0]["messages"]
    assert summary["calls"]["other"] == 2 and summary.get("runaways", {}) == {}
    assert summary["reask_kinds"] == {"truncated": 1}


def test_a_fresh_cut_answer_then_a_loop_keeps_the_grown_limit(tmp_path, api_key):
    """Cut while fresh at 100 (grown to 200), then a loop at 200: asked again at 200, not 400."""
    out, _, _, limits, summary = _run(CuttingPeer(FRESH, LOOP), tmp_path)
    assert asks_of(out) == 3 and limits == [100, 200, 200]
    assert summary["reask_kinds"] == {"truncated": 1, "runaway": 1} and summary["runaways"]["other"] == 1


def test_a_model_that_keeps_looping_fails_as_a_runaway_never_asking_for_more(tmp_path, api_key):
    _, err, _, limits, summary = _run(CuttingPeer(LOOP, LOOP, LOOP, LOOP), tmp_path, reasks=3)
    assert limits == [100, 100, 100, 100]  # the old rule asked 100, 200, 400, 400
    assert isinstance(err, RunawayAnswer) and err.kind == "runaway" and err.asks == 4
    assert err.label == "runaway answer (repeated itself until max_tokens=100)"
    assert "repeat a span of" in str(err) and "\n" not in str(err)
    assert summary["runaways"]["other"] == 4 and summary["reasks"]["other"] == 3  # the last one is not re-asked

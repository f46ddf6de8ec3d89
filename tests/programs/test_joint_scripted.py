"""The joint MQM judge on a scripted offline LM: the seeded, recorded candidate order, the two-order mean,
an answer that misses a candidate, and its registry entry."""

from __future__ import annotations

import dspy
import pytest

from tests.support.mqm_fakes import ScriptedEngine
from tribunal.core.judges import JUDGES
from tribunal.programs.answers.unusable import UnusableAnswer
from tribunal.programs.mqm.joint import JointConfig, JointMQMJudge, shown_order
from tribunal.programs.mqm.roles import RoleLMs

SOURCE = "The committee approved the budget yesterday."
CANDIDATES = ["Der Ausschuss genehmigte gestern den Haushalt.", "Das Komitee hat gestern das Budget genehmigt.",
              "Der Ausschuss billigte Haushalt gestern.", "Gestern Budget."]


def _by_position(name, inputs):
    """The first candidate shown gets one major error, every other one none: a pure position bias."""
    return {"judgments": [{"candidate": c["label"], "errors": [] if n else [
        {"span": c["translation"].split()[0], "category": "accuracy", "severity": "major"}]}
        for n, c in enumerate(inputs["candidates"])]}


def _judge(respond, **settings):
    engine = ScriptedEngine(respond)
    lm = dspy.LM("scripted/judge", engine=engine, cache=False, num_retries=0)
    return JointMQMJudge(JointConfig(**settings), RoleLMs(lm, {})), engine


def test_the_order_is_seeded_by_the_source_recorded_and_independent_of_the_arrival_order():
    judge, engine = _judge(_by_position, seed=7)
    first = judge(source=SOURCE, candidates=CANDIDATES, source_lang="English", target_lang="German")
    again = judge(source=SOURCE, candidates=CANDIDATES[::-1], source_lang="English", target_lang="German")
    shown = [c["translation"] for c in engine.calls[0][1]["candidates"]]
    assert shown == [c["translation"] for c in engine.calls[1][1]["candidates"]]  # arrival order does not matter
    assert shown != sorted(CANDIDATES) or shown_order(7, SOURCE, 4) == [0, 1, 2, 3]
    for index, judged in enumerate(first.judgments):
        step = judged.transcript[0].model_dump()
        assert shown[step["position"]] == CANDIDATES[index] and step["label"] == "ABCD"[step["position"]]
        assert step["order"] == [CANDIDATES.index(t) for t in shown]
        assert judged.score == (-5.0 if step["position"] == 0 else 0.0)
    assert {j.score for j in again.judgments} == {-5.0, 0.0}
    assert shown_order(7, SOURCE, 4) != shown_order(8, SOURCE, 4) or shown_order(7, SOURCE, 4) != shown_order(9, SOURCE, 4)


def test_two_orders_average_the_shuffled_order_and_its_reverse():
    judge, engine = _judge(_by_position, orders=2)
    out = judge(source=SOURCE, candidates=CANDIDATES)
    assert len(engine.calls) == 2
    first, second = ([c["translation"] for c in call[1]["candidates"]] for call in engine.calls)
    assert second == first[::-1]
    scores = {CANDIDATES[i]: j.score for i, j in enumerate(out.judgments)}
    assert scores[first[0]] == scores[first[-1]] == -2.5  # first shown once: mean of -5 and 0
    assert scores[first[1]] == scores[first[2]] == 0.0
    assert all(len(j.transcript) == 2 for j in out.judgments)


def test_an_answer_missing_a_candidate_is_unusable():
    judge, engine = _judge(lambda name, inputs: {"judgments": [{"candidate": "A", "errors": []}]})
    with pytest.raises(UnusableAnswer):
        judge(source=SOURCE, candidates=CANDIDATES)


def test_registry_entry():
    judge = JUDGES.get("joint-mqm")
    assert judge.kind == "mt" and judge.together and judge.role_names() == ("joint",)
    assert "1/N" in judge.calls.rule and judge.calls.fixed
    assert isinstance(judge.build(), JointMQMJudge)

"""Predictor and LM calls reach the call log and the usage meter the same way whether tribunal's code
reports them (programs/call_observers.py) or DSPy's callbacks relay them, and tribunal's own program on
tribunal's own LM costs no DSPy callback machinery at all."""

from __future__ import annotations

import inspect

import dspy
import pytest

from tests.support.scripted_lm import ScriptedEngine
from tribunal.eval.tracking import call_log
from tribunal.eval.tracking.call_log import CallLog, attach_call_log, recording, reports_its_calls
from tribunal.programs.answers import ask, tolerant_answers
from tribunal.programs.mqm.gemba import GembaMQMJudge
from tribunal.programs.tribunal_lm import TribunalLM
from tribunal.runner.meter import UsageMeter, attach_relay, metering


class Asking(dspy.Module):
    """A user's program (not tribunal's module) that calls its predictor twice through ``ask``."""

    def __init__(self) -> None:
        super().__init__()
        self.answer = dspy.Predict("question -> answer")

    def forward(self, question: str) -> dspy.Prediction:
        with tolerant_answers():
            first = ask(self.answer, question=question)
            return ask(self.answer, question=first.answer + "?")


def _lm(kind: type) -> tuple:
    engine = ScriptedEngine(lambda system, user: {"answer": "forty-two"})
    return kind("scripted/test", engine=engine, cache=False, temperature=0.0, num_retries=0), engine


def _run(program: Asking, lm) -> tuple[list[dict], dict]:
    meter, log = UsageMeter(), CallLog()
    with dspy.context(lm=lm), metering(meter), recording(log):
        assert program(question="why").answer == "forty-two"
    return log.records(), meter.summary()


def _comparable(records: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k not in ("id", "start", "end")} for r in records]


@pytest.mark.parametrize("lm_kind", [TribunalLM, dspy.LM])
def test_reported_and_relayed_calls_make_the_same_records_and_counts(lm_kind, monkeypatch):
    relayed_lm, _ = _lm(lm_kind)
    relayed = attach_call_log(Asking(), [attach_relay(relayed_lm)])
    assert call_log.RELAY in relayed.answer.callbacks  # a user's program: its predictors get the relay
    records, usage = _run(relayed, relayed_lm)

    monkeypatch.setattr(call_log, "reports_its_calls", lambda program: True)
    reported_lm, _ = _lm(lm_kind)
    reported = attach_call_log(Asking(), [attach_relay(reported_lm)])
    assert reported.answer.callbacks == []
    again, usage_again = _run(reported, reported_lm)

    assert len(records) == 2 and _comparable(again) == _comparable(records)  # once each, never twice
    assert [r["lm_calls"] for r in records] == [1, 1] and [r["prompt_tokens"] for r in records] == [1, 1]
    assert records[0]["inputs"] == {"question": "why"} and records[1]["outputs"] == {"answer": "forty-two"}
    assert usage == usage_again and sum(usage["calls"].values()) == 2 * 2  # by stage and by stage/role


def test_tribunal_programs_and_lms_report_without_dspy_callbacks(monkeypatch):
    judge = GembaMQMJudge()
    lm, engine = _lm(TribunalLM)
    assert reports_its_calls(judge) and not reports_its_calls(Asking())
    attach_call_log(judge, [attach_relay(lm)])
    assert lm.callbacks == [] and all(p.callbacks == [] for _, p in judge.named_predictors())

    monkeypatch.setattr(call_log, "reports_its_calls", lambda program: True)
    program = attach_call_log(Asking(), [lm])
    bound = []
    real = inspect.getcallargs
    monkeypatch.setattr(inspect, "getcallargs", lambda *a, **k: bound.append(a[0]) or real(*a, **k))
    records, usage = _run(program, lm)
    assert bound == []  # DSPy's callback machinery never ran
    assert len(engine.calls) == 2 and [r["lm_calls"] for r in records] == [1, 1]
    assert sum(usage["prompt_tokens"].values()) == 2 * 2


def test_a_failed_lm_call_is_counted_and_its_predictor_records_the_error():
    def broken(system, user):
        raise ConnectionError("the server went away")

    lm = TribunalLM("scripted/test", engine=ScriptedEngine(broken), cache=False, temperature=0.0, num_retries=0)
    meter, log = UsageMeter(), CallLog()
    program = attach_call_log(Asking(), [lm])
    with dspy.context(lm=lm), metering(meter), recording(log), pytest.raises(Exception, match="the server went away"):
        program(question="why")
    [record] = log.records()
    assert record["lm_failures"] == 1 and "the server went away" in record["error"]
    assert sum(meter.summary()["failed"].values()) == 2  # by stage and by stage/role

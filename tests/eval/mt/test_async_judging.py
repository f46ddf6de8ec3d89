"""The async runner (``--judging async``): Ctrl-C cancels the items in flight and keeps what landed,
a bug propagates, a judge without an async form is refused before any call, and ``--concurrency``
goes to 4096 on this path only."""

from __future__ import annotations

import asyncio
import signal
import time

import dspy
import pytest
from pydantic import ValidationError

from tribunal.core.mt_item import JudgeItem
from tribunal.errors import UserError
from tribunal.eval.mt.async_judging import ajudge_all, require_async
from tribunal.eval.mt.config import EvaluateConfig
from tribunal.programs.lm import LMSettings

from .helpers import wmt23


class _Kept:
    def __init__(self) -> None:
        self.results: list = []

    def append(self, result) -> None:
        self.results.append(result)


class _Sleeper(dspy.Module):
    """Answers item "fast" at once; any other item only after ``seconds``."""

    def __init__(self, seconds: float, fail: bool = False):
        super().__init__()
        self.seconds, self.fail = seconds, fail

    def forward(self, **inputs):  # the threaded form, unused here
        raise AssertionError("the async runner calls aforward")

    async def aforward(self, source: str, translation: str, **_):
        if translation != "fast":
            await asyncio.sleep(self.seconds)
        if self.fail and translation == "fast":
            raise RuntimeError("a bug in the judge")
        return dspy.Prediction(score=-1.0, errors=[], transcript=[], debates={})


def _items() -> list[JudgeItem]:
    return [JudgeItem("a", "src", "fast"), JudgeItem("b", "src", "slow"), JudgeItem("c", "src", "slow")]


def test_ctrl_c_cancels_the_items_in_flight_and_keeps_the_landed_ones():
    journal = _Kept()
    started = time.perf_counter()

    def landed(_result):
        signal.raise_signal(signal.SIGINT)  # as a terminal's Ctrl-C, once the first item is journaled

    with pytest.raises(KeyboardInterrupt):
        ajudge_all(lambda: _Sleeper(30), _items(), {}, journal, concurrency=3, on_result=landed)
    assert [r.key for r in journal.results] == ["a"]
    assert time.perf_counter() - started < 10, "the slow items were cancelled, not waited for"


def test_a_bug_in_an_item_propagates_and_cancels_the_others():
    with pytest.raises(RuntimeError, match="a bug in the judge"):
        ajudge_all(lambda: _Sleeper(30, fail=True), _items(), {}, _Kept(), concurrency=3)


def test_a_judge_without_an_async_form_is_refused_before_any_call():
    class ThreadsOnly(dspy.Module):
        def forward(self, **inputs):
            raise AssertionError("never called")

    with pytest.raises(UserError, match="ThreadsOnly has no async form"):
        require_async(ThreadsOnly())
    require_async(_Sleeper(0))  # has one


def test_concurrency_goes_to_4096_with_async_judging_only():
    lm = LMSettings(model="openai/x", api_base="http://127.0.0.1:1/v1")
    assert EvaluateConfig(data=wmt23(), lp="zh-en", lm=lm, concurrency=4096, judging="async").concurrency == 4096
    with pytest.raises(ValidationError, match="at most 512 with judging=threads"):
        EvaluateConfig(data=wmt23(), lp="zh-en", lm=lm, concurrency=1024)
    with pytest.raises(ValidationError):
        EvaluateConfig(data=wmt23(), lp="zh-en", lm=lm, concurrency=4097, judging="async")
    with pytest.raises(ValidationError, match="not with processes above 1"):
        EvaluateConfig(data=wmt23(), lp="zh-en", lm=lm, judging="async", processes=2)

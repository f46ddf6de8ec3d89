"""The async runner (``--judging async``): Ctrl-C cancels the items in flight and keeps what landed,
a bug propagates, a judge without an async form is refused before any call (no registered judge is),
and ``--concurrency`` goes to 4096 on this path only. That each registered judge gives on this path what it
gives on threads: ``test_async_parity.py``."""

from __future__ import annotations

import asyncio
import signal
import time

import dspy
import pytest
from pydantic import ValidationError

from tribunal.core.judges import JUDGES, build_judge
from tribunal.core.mt_item import JudgeItem
from tribunal.errors import UserError
from tribunal.eval.mt.async_judging import ajudge_all, require_async
from tribunal.eval.mt.config import EvaluateConfig
from tribunal.programs.lm import LMSettings
from tribunal.programs.mqm.debate import STRATEGIES
from tribunal.programs.mqm.debate_strategies import strategy_names
from tribunal.programs.mqm.mmad import MMADConfig

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


def test_the_event_loop_judges_with_the_collector_deferred():
    """No collection pauses the loop while it judges (tribunal.runner.loop_collector); back on after."""
    import gc

    seen = []

    class Watching(_Sleeper):
        async def aforward(self, **inputs):
            seen.append(gc.isenabled())
            return await super().aforward(**inputs)

    ajudge_all(lambda: Watching(0), _items()[:1], {}, _Kept(), concurrency=1)
    assert seen == [False] and gc.isenabled()


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


def _every_registered_mt_judge():
    """One program per registered MT judge, and M-MAD with every debate strategy of the registry (both presets)."""
    programs = {name: build_judge(name) for name in JUDGES.names("mt")}
    for strategy in strategy_names():
        for preset in ("paper", "lean") if strategy != "consultancy-review" else ("lean",):
            programs[f"mmad {strategy} {preset}"] = build_judge("mmad", MMADConfig(strategy=strategy, preset=preset))
    return programs


def test_require_async_refuses_no_registered_judge_and_still_one_added_without_aforward(monkeypatch):
    programs = _every_registered_mt_judge()
    assert len(programs) == len(JUDGES.names("mt")) + 7  # 4 strategies, consultancy-review on lean only
    for name, program in programs.items():
        require_async(program)  # no UserError: every registered judge has an async form

    class ThreadsOnlyDebate(dspy.Module):  # a strategy added with forward only
        def __init__(self, **_):
            super().__init__()

        def forward(self, case):
            raise AssertionError("never called")

    monkeypatch.setitem(STRATEGIES, "threads-only", ThreadsOnlyDebate)
    with pytest.raises(UserError, match="ThreadsOnlyDebate has no async form"):
        require_async(build_judge("mmad", MMADConfig(strategy="threads-only")))


def test_concurrency_goes_to_4096_with_async_judging_only():
    lm = LMSettings(model="openai/x", api_base="http://127.0.0.1:1/v1")
    assert EvaluateConfig(data=wmt23(), lp="zh-en", lm=lm, concurrency=4096, judging="async").concurrency == 4096
    with pytest.raises(ValidationError, match="at most 512 with judging=threads"):
        EvaluateConfig(data=wmt23(), lp="zh-en", lm=lm, concurrency=1024)
    with pytest.raises(ValidationError):
        EvaluateConfig(data=wmt23(), lp="zh-en", lm=lm, concurrency=4097, judging="async")
    assert EvaluateConfig(data=wmt23(), lp="zh-en", lm=lm, judging="async", processes=2).processes == 2

"""The judging loop's executor: DSPy's pricing step in place, anything else on a helper thread."""

from __future__ import annotations

import asyncio
import contextvars
import threading

import pytest

from tribunal.runner.loop_executor import IN_PLACE, LoopExecutor

_seen: contextvars.ContextVar[str] = contextvars.ContextVar("_seen", default="unset")


def _named(name: str):
    module, _, qualname = name.rpartition(".")

    def step(fail: bool = False) -> tuple[int, str]:
        if fail:
            raise ValueError("priced badly")
        return threading.get_ident(), _seen.get()

    step.__module__, step.__qualname__ = module, qualname
    return step


def _on_loop(step, **kwargs):
    async def run():
        executor = LoopExecutor()
        asyncio.get_running_loop().set_default_executor(executor)
        _seen.set("the caller's")
        return threading.get_ident(), await asyncio.to_thread(step, **kwargs), executor.in_place

    return asyncio.run(run())


def test_the_pricing_step_runs_in_place_in_the_callers_context():
    loop_thread, (step_thread, seen), in_place = _on_loop(_named("dspy.clients.execution._price_result"))
    assert step_thread == loop_thread and seen == "the caller's" and in_place == 1


def test_anything_else_still_runs_on_a_helper_thread():
    loop_thread, (step_thread, seen), in_place = _on_loop(_named("tribunal.eval.mt.journal.append"))
    assert step_thread != loop_thread and seen == "the caller's" and in_place == 0


def test_an_exception_in_place_reaches_the_awaiting_caller():
    with pytest.raises(ValueError, match="priced badly"):
        _on_loop(_named("dspy.clients.execution._price_legacy"), fail=True)


def test_the_steps_named_are_dspys_own():
    """A DSPy that renames its pricing step fails here (the loop would only lose the saving)."""
    import importlib

    for name in IN_PLACE:
        module, _, attribute = name.rpartition(".")
        assert callable(getattr(importlib.import_module(module), attribute))

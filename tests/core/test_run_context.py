"""The run context: one immutable object in one context variable, copied with the context."""

from __future__ import annotations

import ast
import asyncio
import contextvars
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tribunal.core.run_context import RunContext, current, reset, run_context, setter

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("data", "eval", "optimizers", "programs", "signatures", "tribunal")


def test_defaults_are_the_variables_defaults():
    run = current()
    assert run == RunContext()
    assert run.call == ("other", "other")
    assert run.priority == 0 and run.fan_out_depth == 0
    assert run.observers == () and run.scheduler is None and run.meter is None
    assert not run.segment_inputs


def test_immutable_and_without_instance_dict():
    run = RunContext()
    with pytest.raises(AttributeError):
        run.rollout = 3  # type: ignore[misc]
    assert not hasattr(run, "__dict__")


def test_run_context_nests_and_restores():
    with run_context(rollout=1, subject="fluency") as outer:
        assert outer is current() and current().rollout == 1
        with run_context(rollout=2) as inner:
            assert inner.rollout == 2 and inner.subject == "fluency"
        assert current() is outer
    assert current() == RunContext()


def test_restored_on_exception():
    with pytest.raises(RuntimeError):
        with run_context(call=("stage1", "accuracy")):
            raise RuntimeError("boom")
    assert current().call == ("other", "other")


def test_unknown_field_refused():
    with pytest.raises(ValueError):
        with run_context(no_such_field=1):
            pass


def test_setter_changes_one_field_and_reset_restores():
    set_rollout = setter("rollout")
    with run_context(subject="style"):
        token = set_rollout(7)
        assert current().rollout == 7 and current().subject == "style"
        assert type(current()) is RunContext
        reset(token)
        assert current().rollout is None
    with pytest.raises(ValueError):
        setter("no_such_field")


def test_copied_into_a_thread_and_its_changes_stay_there():
    seen = []

    def work():
        seen.append(current().rollout)
        setter("rollout")(99)  # in the thread's copy only
        seen.append(current().rollout)

    with run_context(rollout=5):
        with ThreadPoolExecutor(1) as pool:
            pool.submit(contextvars.copy_context().run, work).result()
        assert current().rollout == 5
    assert seen == [5, 99]
    plain = threading.Thread(target=lambda: seen.append(current().rollout))  # a fresh thread: the defaults
    plain.start()
    plain.join()
    assert seen[-1] is None


def test_copied_into_asyncio_tasks():
    async def child(number: int) -> tuple[int | None, int | None]:
        before = current().rollout
        with run_context(rollout=number):
            await asyncio.sleep(0)
            return before, current().rollout

    async def main():
        with run_context(rollout=1):
            results = await asyncio.gather(child(2), child(3))
            return results, current().rollout

    assert asyncio.run(main()) == ([(1, 2), (1, 3)], 1)


def test_mutable_fields_shared_by_copies():
    wants: dict = {}
    with run_context(batch_wants=wants):
        contextvars.copy_context().run(lambda: current().batch_wants.setdefault("k", 1))
    assert wants == {"k": 1}


def test_module_functions_read_the_one_object():
    from tribunal.core.call_slots import current_slot, in_slot
    from tribunal.core.scheduling import Scheduler, current_scheduler, scheduled
    from tribunal.programs.mqm.roles import calls_as, current_call
    from tribunal.programs.mqm.sampling import current_rollout, rollout

    scheduler = Scheduler()
    with scheduled(scheduler, priority=4), calls_as("stage2", "opposer"), rollout(2), in_slot(11):
        assert current_scheduler() is scheduler and current().priority == 4
        assert current_call() == ("stage2", "opposer") == current().call
        assert current_rollout() == 2 and current_slot() == 11
    assert current() == RunContext()


def _context_variables(path: Path) -> list[int]:
    lines = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Call):
            called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            if called == "ContextVar":
                lines.append(node.lineno)
    return lines


def test_one_context_variable_in_the_codebase():
    found = {str(p.relative_to(ROOT)): lines for folder in FOLDERS for p in (ROOT / folder).rglob("*.py")
             if "__pycache__" not in p.parts and (lines := _context_variables(p))}
    assert list(found) == ["tribunal/core/run_context.py"] and len(found["tribunal/core/run_context.py"]) == 1

"""The collector on the judging loop: off while the loop judges, young objects frozen, cycles found later."""

from __future__ import annotations

import asyncio
import gc

import pytest

from tribunal.runner.loop_collector import DeferredCollector, deferred_collection


class _Young:
    pass


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_the_collector_is_off_while_the_loop_runs_and_back_after():
    seen = []

    async def judging() -> str:
        seen.append(gc.isenabled())
        return "done"

    assert gc.isenabled()
    assert deferred_collection(judging()) == "done"
    assert seen == [False] and gc.isenabled() and gc.get_freeze_count() == 0


def test_a_failing_loop_still_puts_the_collector_back():
    async def failing() -> None:
        raise RuntimeError("a bug")

    with pytest.raises(RuntimeError, match="a bug"):
        deferred_collection(failing())
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_young_objects_are_frozen_once_there_are_enough_of_them():
    collector = DeferredCollector(young=1_000)
    gc.disable()
    try:
        gc.collect()
        frozen = gc.get_freeze_count()
        kept = [_Young() for _ in range(500)]
        collector.tick()
        assert collector.freezes == 0, "not yet: fewer young objects than the limit"
        kept += [_Young() for _ in range(2_000)]
        collector.tick()
        assert collector.freezes == 1 and gc.get_count()[0] < 1_000
        assert gc.get_freeze_count() >= frozen + len(kept)
    finally:
        gc.unfreeze()
        gc.enable()


def test_cycles_made_while_frozen_are_found_by_the_full_collection_past_the_bound():
    collector = DeferredCollector(young=1)
    gc.disable()
    try:
        for _ in range(300):
            _Cycle()  # garbage at once, but only a collection can free a cycle
        collector.bound = 0  # as if the frozen heap had outgrown its bound
        kept = []
        for _ in range(10):  # the bound is looked at every tenth freeze
            kept.append([_Young() for _ in range(5)])  # young objects that stay alive (lists come from a free list)
            collector.tick()
        assert collector.collections == 1 and collector.found >= 300
        assert collector.bound > gc.get_freeze_count(), "a new bound above what survived"
    finally:
        gc.unfreeze()
        gc.enable()


def test_the_keeper_ticks_on_the_running_loop():
    collector = DeferredCollector(young=0)

    async def judging() -> None:
        await asyncio.sleep(0.35)

    deferred_collection(judging(), collector)
    assert collector.freezes >= 2

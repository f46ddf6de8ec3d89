"""Completions: watched futures come back once each, in the order they finished, and waiting on many is cheap."""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor

from tribunal.runner import interruptible


def test_futures_come_back_once_each_in_the_order_they_finished():
    completions = interruptible.Completions()
    first, second, third = (completions.watch(Future()) for _ in range(3))
    second.set_result("b")
    third.set_result("c")
    first.set_result("a")
    assert [completions.next().result() for _ in range(3)] == ["b", "c", "a"]


def test_a_future_already_finished_when_watched_is_reported():
    done = Future()
    done.set_exception(ValueError("boom"))
    completions = interruptible.Completions()
    assert completions.watch(done) is done
    assert completions.next() is done


class _CountedCondition(threading.Condition):
    entered = 0

    def __enter__(self):
        _CountedCondition.entered += 1
        return super().__enter__()


def test_a_wait_does_not_touch_the_futures_still_running():
    """Waiting costs the same however many futures are in flight: their locks are not taken per wait
    (``concurrent.futures.wait`` takes every one each time it sleeps)."""
    completions = interruptible.Completions()
    pending = [completions.watch(Future()) for _ in range(200)]
    for future in pending:
        future._condition = _CountedCondition()
    release = threading.Event()
    with ThreadPoolExecutor(1) as pool:
        for _ in range(3):
            finished = completions.watch(pool.submit(release.wait, 5))
            release.set()
            assert completions.next() is finished
    assert _CountedCondition.entered == 0


def test_next_wakes_every_slice_while_nothing_finishes(monkeypatch):
    """The main thread runs Python code between slices, so a Ctrl-C taken by a worker is raised there."""
    monkeypatch.setattr(interruptible, "SLICE_SECONDS", 0.01)
    completions = interruptible.Completions()
    late = completions.watch(Future())
    timer = threading.Timer(0.1, late.set_result, args=(1,))
    gets = []
    original = completions._done.get
    monkeypatch.setattr(completions, "_done", type("Q", (), {"get": lambda self, timeout: gets.append(timeout)
                                                            or original(timeout=timeout)})())
    timer.start()
    assert completions.next() is late
    assert len(gets) > 2 and set(gets) == {0.01}

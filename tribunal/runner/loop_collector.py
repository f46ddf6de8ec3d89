"""The garbage collector on the event loop (``--judging async``): no collection pauses the loop.

A thousand calls in flight keep about 1.5 million objects alive (each waiting call's coroutine
stack), and nearly every young object the collector walks there is a waiting call's own, still
alive. At 1,024 in flight a generation-0 collection every 200,000 net allocations took 0.25 s and
the one generation-1 collection 1.3 s, 4.6 s of 78 s in all: each a fall of the calls in flight
(the red bands of ``benchmarks/bench_client_cpu.py``'s timeline), and the only falls there were.

An object that dies is freed by its reference count whether the collector runs or not; the
collector only finds garbage *cycles*. So while the loop judges, :func:`deferred_collection` turns
the automatic collector off and, every ``young`` net allocations, moves what is young into the
permanent generation (``gc.freeze()``: constant time, nothing walked; a frozen object is still
freed when its count drops to zero). Garbage cycles wait for the end of judging, or for one full
collection when the frozen heap has grown past a bound: its size after the last full collection
(the start-up heap, at first) plus the larger of that size and ``floor`` objects (CPython collects
its oldest generation at a quarter's growth; cycles are rare here: ``tests/runner/test_loop_collector.py``
and the benchmark's count of what the last collection found). After judging the collector is on
again and the permanent generation is put back, to be collected as usual.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import threading
from dataclasses import dataclass, field
from typing import Any, Coroutine, TypeVar

from tribunal.runner.collector import steady_collector

T = TypeVar("T")

YOUNG = 200_000
"""Net allocations between two freezes of the young objects (the threshold the loop collected at before)."""

FLOOR = 2_000_000
"""Frozen objects the heap may grow by before a full collection, at least (1,024 in flight hold ~1.5 million)."""

TICK_SECONDS = 0.1
"""How often the loop looks at the young objects' count (at 512 calls a second, ~20,000 allocations)."""

_lock = threading.Lock()
_deferring = {"runs": 0, "enabled": True}


@dataclass
class DeferredCollector:
    """The bookkeeping of one judging loop's deferred collection (see the module docstring)."""

    young: int = YOUNG
    floor: int = FLOOR
    freezes: int = 0
    collections: int = 0
    found: int = 0
    """Unreachable objects the full collections found (garbage cycles made while judging)."""
    bound: int = field(default=0)

    def __post_init__(self) -> None:
        self.bound = self._bound_after(gc.get_freeze_count())

    def _bound_after(self, frozen: int) -> int:
        return frozen + max(frozen, self.floor)

    def tick(self) -> None:
        """Freeze the young objects once there are ``young`` of them; collect in full past the bound."""
        if gc.get_count()[0] < self.young:
            return
        gc.freeze()
        self.freezes += 1
        if self.freezes % 10 == 0 and gc.get_freeze_count() > self.bound:  # counting walks the list: not each time
            self.collect()

    def collect(self) -> None:
        """One full collection of everything, then the survivors frozen again (a pause of a second or more)."""
        gc.unfreeze()
        self.found += gc.collect()
        self.collections += 1
        gc.freeze()
        self.bound = self._bound_after(gc.get_freeze_count())

    async def keep(self, seconds: float = TICK_SECONDS) -> None:
        """:meth:`tick` every ``seconds`` on the running loop, until cancelled."""
        while True:
            await asyncio.sleep(seconds)
            self.tick()


def deferred_collection(coroutine: Coroutine[Any, Any, T], collector: DeferredCollector | None = None) -> T:
    """``asyncio.run(coroutine)`` with the collector deferred while it runs (see the module docstring)."""
    with steady_collector(), _collector_off():
        kept = collector or DeferredCollector()

        async def judged() -> T:
            keeper = asyncio.ensure_future(kept.keep())
            try:
                return await coroutine
            finally:
                keeper.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await keeper

        return asyncio.run(judged())


@contextlib.contextmanager
def _collector_off():
    """The automatic collector off for the block; back as it was after the last of overlapping blocks."""
    with _lock:
        if _deferring["runs"] == 0:
            _deferring["enabled"] = gc.isenabled()
            gc.disable()
        _deferring["runs"] += 1
    try:
        yield
    finally:
        with _lock:
            _deferring["runs"] -= 1
            if _deferring["runs"] == 0 and _deferring["enabled"]:
                gc.enable()

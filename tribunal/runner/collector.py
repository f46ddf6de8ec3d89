"""The garbage collector while judging: no full collection that walks the start-up heap.

After start-up (DSPy, pydantic, LiteLLM and the program built) the heap holds a few hundred
thousand long-lived objects. CPython's cyclic collector walks all of them at every generation-2
collection: the 128-slot benchmark (``benchmarks/bench_client_cpu.py``) measured 379 collections
taking 1.6 s of the judging loop, the longest a 0.22 s pause of every thread, which shows as a
dip in the calls in flight. :func:`steady_collector` moves what exists when judging starts into
the permanent generation (``gc.freeze()``, never scanned) and raises the generation-0 threshold,
so the collector runs less often over the judging loop's own short-lived objects; both are put
back when judging ends. Cycles made while judging are still collected. The event loop
(``--judging async``) goes further: :mod:`tribunal.runner.loop_collector`.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from typing import Iterator

JUDGING_THRESHOLD0 = 20_000
"""Allocations (minus deallocations) between generation-0 collections while judging (CPython: 700)."""

_lock = threading.Lock()
_active = {"runs": 0, "thresholds": (700, 10, 10)}  # judging loops inside steady_collector, and what to restore


@contextlib.contextmanager
def steady_collector(threshold0: int = JUDGING_THRESHOLD0) -> Iterator[None]:
    """Freeze the start-up heap and collect less often (every ``threshold0`` net allocations) for the
    enclosed block; restore both after the last of any overlapping blocks (two runs judging in one
    process at once) ends."""
    with _lock:
        if _active["runs"] == 0:
            _active["thresholds"] = gc.get_threshold()
            gc.freeze()
            gc.set_threshold(max(_active["thresholds"][0], threshold0), *_active["thresholds"][1:])
        _active["runs"] += 1
    try:
        yield
    finally:
        with _lock:
            _active["runs"] -= 1
            if _active["runs"] == 0:
                gc.set_threshold(*_active["thresholds"])
                gc.unfreeze()

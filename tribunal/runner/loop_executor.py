"""The judging loop's default executor: DSPy's pricing step run in place instead of on a helper thread.

DSPy's ``aexecute`` prices every completed call with ``await asyncio.to_thread(_price_result, ...)``
(the legacy path: ``_price_legacy``), to keep a first lookup of the price table off the loop. The
step is pure Python under the GIL, so the hop buys no parallelism: it costs a future, a thread
wake-up and two GIL hand-overs per call, and with the loop busy the helper thread waits for the GIL.
At 1,024 calls in flight the loop spent 1.85 ms a call with the hop and 1.69 ms without it
(``benchmarks/bench_client_cpu.py``, the same run).

:class:`LoopExecutor` is installed as the default executor of tribunal's own judging loop only (no
other loop, no DSPy object is changed): a function named in :data:`IN_PLACE` runs in place, in the
context ``to_thread`` copied for it, and its future is done when ``submit`` returns; anything else
(the journal's fsync, DSPy's disk cache) goes to a thread pool as before. A DSPy that renames the
step only loses the saving.
"""

from __future__ import annotations

import concurrent.futures
import functools
from typing import Any, Callable

IN_PLACE = frozenset({
    "dspy.clients.execution._price_result",  # estimate_cost over the in-memory price table
    "dspy.clients.execution._price_legacy",  # the same, for a response LiteLLM returned
})
"""``module.qualname`` of the functions run in place: pure CPU, no I/O once the price table is loaded."""


def _target(fn: Callable[..., Any], args: tuple[Any, ...]) -> str:
    """The name of what ``to_thread`` asked for: it submits ``partial(context.run, func, ...)``."""
    if isinstance(fn, functools.partial) and fn.args and getattr(fn.func, "__name__", "") == "run":
        fn = fn.args[0]
    elif getattr(fn, "__name__", "") == "run" and args:  # loop.run_in_executor(None, context.run, func)
        fn = args[0]
    return f"{getattr(fn, '__module__', '')}.{getattr(fn, '__qualname__', '')}"


class LoopExecutor(concurrent.futures.ThreadPoolExecutor):
    """A thread pool (asyncio takes no other kind as a default executor) that runs the functions of
    :data:`IN_PLACE` in place (see the module docstring)."""

    def __init__(self, workers: int | None = None):
        super().__init__(workers, thread_name_prefix="tribunal-loop-io")
        self.in_place = 0

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> concurrent.futures.Future:
        """``fn(*args, **kwargs)``: in place for :data:`IN_PLACE`, else on the pool."""
        if _target(fn, args) not in IN_PLACE:
            return super().submit(fn, *args, **kwargs)
        self.in_place += 1
        future: concurrent.futures.Future = concurrent.futures.Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as err:  # noqa: BLE001 - handed to the awaiting caller, as the pool would
            future.set_exception(err)
        return future

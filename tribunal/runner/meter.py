"""Counting LM calls and tokens per stage and role, per item, without touching the program.

A :class:`UsageMeter` is both a DSPy callback (one ``on_lm_start`` per LM call the program makes,
retries inside DSPy's LM layer included in that one call) and DSPy's ``usage_tracker`` (tokens of
each completed call). Install one per item with ``dspy.context(callbacks=[m], usage_tracker=m)``,
or, cheaper, with :func:`metering`: tribunal's own LMs report their calls to it directly
(:mod:`tribunal.programs.call_observers`), and other LMs that carry the :data:`RELAY`
(:func:`attach_relay`) through DSPy's callbacks around LM calls only, not around every module and
adapter step (each costs DSPy an ``inspect.getcallargs``). The stage and role come from
:func:`tribunal.programs.mqm.roles.current_call`.
"""

from __future__ import annotations

import contextlib
import threading
from collections import Counter
from typing import Any, Iterable, Iterator, Mapping

from tribunal.core.run_context import current, reset, setter
from tribunal.core.usage_counts import UsageCounts
from tribunal.programs.answers.reask import current_reask
from tribunal.programs.call_observers import CallObserver, current_lm_call, observing
from tribunal.programs.mqm.roles import current_call

from dspy.utils.callback import BaseCallback  # a real subclass, so DSPy dispatches to it
import dspy


class UsageMeter(BaseCallback, CallObserver):
    """Calls (answered by the provider, served by the response cache, failed) and tokens of one item,
    by ``stage`` and ``stage/role``; tokens also by model (for the price). Re-asks of unusable answers
    (:mod:`tribunal.programs.answers.reask`) are calls too, also counted apart: ``reasks`` by stage and
    role, ``reask_kinds`` by the kind of answer re-asked about (refusal, unparseable, invalid, truncated,
    runaway). ``runaways`` counts, by stage and role, the answers cut while repeating themselves
    (:mod:`tribunal.programs.answers.runaway`), the last one included when it is not re-asked.

    A call is *cached* when it ended without DSPy reporting provider usage for it: DSPy calls the
    usage tracker once for every answer that came from the provider and never for a cache hit.
    Thread-safe: an item's independent calls may run on several threads at once (DSPy runs a call's
    callbacks and its usage report on the thread that made the call).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.calls: Counter[str] = Counter()
        self.failed: Counter[str] = Counter()
        self.cached: Counter[str] = Counter()
        self.reasks: Counter[str] = Counter()
        self.reask_kinds: Counter[str] = Counter()
        self.runaways: Counter[str] = Counter()
        self.prompt_tokens: Counter[str] = Counter()
        self.completion_tokens: Counter[str] = Counter()
        self.model_prompt_tokens: Counter[str] = Counter()
        self.model_completion_tokens: Counter[str] = Counter()
        self._open: dict[int, str] = {}  # thread -> the call it is making
        self._paid: set[str] = set()

    def lm_started(self, call_id: str, lm: Any) -> None:
        """A reported LM call (:mod:`tribunal.programs.call_observers`): as DSPy's ``on_lm_start``."""
        self.on_lm_start(call_id, lm, {})

    def lm_ended(self, call_id: str, exception: BaseException | None) -> None:
        """A reported LM call ended: as DSPy's ``on_lm_end``."""
        self.on_lm_end(call_id, None, exception)

    def runaway(self) -> None:
        """A runaway answer (:mod:`tribunal.programs.call_observers`), counted by stage and role."""
        with self._lock:
            self.runaways.update(self._keys())

    def _keys(self) -> tuple[str, str]:
        stage, role = current_call()
        return stage, f"{stage}/{role}"

    def on_lm_start(self, call_id: str, instance: Any, inputs: dict[str, Any]) -> None:
        reask = current_reask()
        with self._lock:
            self.calls.update(self._keys())
            if reask is not None:
                self.reasks.update(self._keys())
                self.reask_kinds[reask] += 1
            self._open[threading.get_ident()] = call_id

    def on_lm_end(self, call_id: str, outputs: Any, exception: BaseException | None = None) -> None:
        with self._lock:
            self._open.pop(threading.get_ident(), None)
            if exception is not None:
                self.failed.update(self._keys())
            elif call_id not in self._paid:
                self.cached.update(self._keys())
            self._paid.discard(call_id)

    def add_usage(self, model: str, usage: dict[str, Any] | None) -> None:
        """DSPy's usage-tracker hook: called once per answer from the provider (never for a cache hit)."""
        usage = usage or {}
        prompt, completion = int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
        with self._lock:
            # tribunal's own LM names its call in the context (one thread may run many calls: --judging async)
            call_id = current_lm_call() or self._open.get(threading.get_ident())
            if call_id is not None:
                self._paid.add(call_id)
            for key in self._keys():
                self.prompt_tokens[key] += prompt
                self.completion_tokens[key] += completion
            self.model_prompt_tokens[model] += prompt
            self.model_completion_tokens[model] += completion

    def summary(self) -> dict[str, dict[str, int]]:
        with self._lock:
            return {"calls": dict(self.calls), "failed": dict(self.failed), "cached": dict(self.cached),
                    "reasks": dict(self.reasks), "reask_kinds": dict(self.reask_kinds),
                    "runaways": dict(self.runaways),
                    "prompt_tokens": dict(self.prompt_tokens), "completion_tokens": dict(self.completion_tokens),
                    "model_prompt_tokens": dict(self.model_prompt_tokens),
                    "model_completion_tokens": dict(self.model_completion_tokens)}


_SET_METER = setter("meter")


class _Relay(BaseCallback):
    """An LM-instance callback forwarding to the meter of the item being judged (if any)."""

    def on_lm_start(self, call_id: str, instance: Any, inputs: dict[str, Any]) -> None:
        meter = current().meter
        if meter is not None:
            meter.on_lm_start(call_id, instance, inputs)

    def on_lm_end(self, call_id: str, outputs: Any, exception: BaseException | None = None) -> None:
        meter = current().meter
        if meter is not None:
            meter.on_lm_end(call_id, outputs, exception)


RELAY = _Relay()


def attach_relay(lm: Any) -> Any:
    """Give ``lm`` the relay callback (once), so :func:`metering` counts its calls; returns ``lm``.

    tribunal's own LM reports its calls without a callback (:mod:`tribunal.programs.call_observers`):
    it gets none.
    """
    if not getattr(lm, "reports_its_calls", False) and RELAY not in lm.callbacks:
        lm.callbacks.append(RELAY)
    return lm


@contextlib.contextmanager
def metering(meter: UsageMeter) -> Iterator[UsageMeter]:
    """Count the LM calls (of relay-carrying LMs) and tokens made in this context into ``meter``."""
    token = _SET_METER(meter)
    try:
        with dspy.context(usage_tracker=meter, disable_history=True), observing(meter):
            yield meter
    finally:
        reset(token)


def add_summaries(summaries: Iterable[Mapping[str, Mapping[str, int]] | UsageCounts]) -> dict[str, dict[str, int]]:
    """Element-wise sum of :meth:`UsageMeter.summary` dicts (or of the items' :class:`UsageCounts`)."""
    total: dict[str, Counter[str]] = {}
    for summary in summaries:
        counted = summary.counts() if isinstance(summary, UsageCounts) else summary
        for field, counts in counted.items():
            total.setdefault(field, Counter()).update(counts)
    return {field: dict(counts) for field, counts in total.items()}

"""Count every LM call of an optimize run, per model and per phase and LM role, with its tokens.

A DSPy callback sees each call, including those of LM copies the optimizers make (bootstrap
and SIMBA resample with copies at temperature 1.0), which per-instance histories would miss.
``lm_calls`` is the cost axis ``tribunal runs compare`` plots.

The counter is also DSPy's usage tracker (``dspy.context(usage_tracker=counter)``): DSPy reports
each answer that came from the provider (never a cache hit) on the thread that made the call, so
its tokens go to that call's key. DSPy's parallel executor gives each worker thread a deep copy of
the usage tracker; this one is shared on purpose (thread-safe), so a copy is the counter itself.

Keys are ``PHASE/ROLE`` as a usage meter's are ``stage/role``
(:meth:`tribunal.runner.meter.UsageMeter.summary`): the phase is ``dev`` (the untuned and tuned dev
evaluations and the objective's re-scoring) or ``search`` (the optimizer's own calls), set by the
job as it goes (:attr:`LMCallCounter.phase`); the role is the optimize LM the call ran on
(``task``, ``teacher``, ``prompt``: :data:`ROLE_ATTRIBUTE` of the LM, kept by ``lm.copy()``).
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

from dspy.utils.callback import BaseCallback

from tribunal.programs.answers.reask import current_reask

ROLE_ATTRIBUTE = "tribunal_optimize_role"
"""The attribute naming the optimize role of an LM (:func:`tribunal.optimizers.lm_roles.build_role_lm`)."""


def lm_role(lm: Any) -> str:
    """The optimize role an LM runs (``task`` for an LM tribunal did not tag)."""
    return str(getattr(lm, ROLE_ATTRIBUTE, None) or "task")


class LMCallCounter(BaseCallback):
    """Calls and failed calls per model name; calls, re-asks, cache hits, failures and tokens per
    ``phase/role``; thread-safe."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.failures = 0
        self.phase = "dev"
        self._models: dict[str, str] = {}
        self._keys: dict[str, str] = {}
        self._open: dict[int, str] = {}  # thread -> the key of the call it is making
        self._paid: set[str] = set()
        self._by_key: dict[str, Counter[str]] = {name: Counter() for name in (
            "calls", "failed", "cached", "reasks", "prompt_tokens", "completion_tokens")}
        self._lock = threading.Lock()

    def __deepcopy__(self, memo: dict[int, Any]) -> "LMCallCounter":
        return self  # shared by DSPy's worker threads (see the module docstring)

    def on_lm_start(self, call_id: str, instance: Any, inputs: dict[str, Any]) -> None:
        key = f"{self.phase}/{lm_role(instance)}"
        reask = current_reask() is not None
        with self._lock:
            self._models[call_id] = str(getattr(instance, "model", "unknown"))
            self._keys[call_id] = key
            self._open[threading.get_ident()] = call_id
            self._by_key["calls"][key] += 1
            self._by_key["reasks"][key] += reask

    def on_lm_end(self, call_id: str, outputs: Any | None, exception: BaseException | None = None) -> None:
        with self._lock:
            self.calls[self._models.pop(call_id, "unknown")] += 1
            self.failures += exception is not None
            key = self._keys.pop(call_id, f"{self.phase}/task")
            if self._open.get(threading.get_ident()) == call_id:
                del self._open[threading.get_ident()]
            if exception is not None:
                self._by_key["failed"][key] += 1
            elif call_id not in self._paid:
                self._by_key["cached"][key] += 1
            self._paid.discard(call_id)

    def add_usage(self, model: str, usage: dict[str, Any] | None) -> None:
        """DSPy's usage-tracker hook: one answer from the provider, on the thread of its call."""
        usage = usage or {}
        with self._lock:
            call_id = self._open.get(threading.get_ident())
            key = self._keys.get(call_id, f"{self.phase}/task") if call_id else f"{self.phase}/task"
            if call_id is not None:
                self._paid.add(call_id)
            self._by_key["prompt_tokens"][key] += int(usage.get("prompt_tokens") or 0)
            self._by_key["completion_tokens"][key] += int(usage.get("completion_tokens") or 0)

    def metrics(self) -> dict[str, float]:
        """``lm_calls``, ``lm_failed_calls``."""
        return {"lm_calls": float(sum(self.calls.values())), "lm_failed_calls": float(self.failures)}

    def summary(self) -> dict[str, dict[str, int]]:
        """Per ``phase/role``, in a usage meter's shape (:func:`tribunal.core.run_summary.role_usage`,
        :func:`tribunal.eval.tracking.usage_metrics.usage_metrics` read it)."""
        with self._lock:
            return {name: dict(counts) for name, counts in self._by_key.items()}

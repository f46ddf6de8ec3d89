"""Counting LM calls and tokens per stage and role, per item, without touching the program.

A :class:`UsageMeter` is both a DSPy callback (one ``on_lm_start`` per LM call the program makes,
retries inside DSPy's LM layer included in that one call) and DSPy's ``usage_tracker`` (tokens of
each completed call). Install one per item with ``dspy.context(callbacks=[m], usage_tracker=m)``;
the stage and role come from :func:`tribunal.programs.mqm.roles.current_call`.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from tribunal.programs.mqm.roles import current_call

from dspy.utils.callback import BaseCallback  # a real subclass, so DSPy dispatches to it


class UsageMeter(BaseCallback):
    """Calls, failed calls and tokens of one item, by ``stage`` and ``stage/role``."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.failed: Counter[str] = Counter()
        self.prompt_tokens: Counter[str] = Counter()
        self.completion_tokens: Counter[str] = Counter()

    def _keys(self) -> tuple[str, str]:
        stage, role = current_call()
        return stage, f"{stage}/{role}"

    def on_lm_start(self, call_id: str, instance: Any, inputs: dict[str, Any]) -> None:
        for key in self._keys():
            self.calls[key] += 1

    def on_lm_end(self, call_id: str, outputs: Any, exception: BaseException | None = None) -> None:
        if exception is not None:
            for key in self._keys():
                self.failed[key] += 1

    def add_usage(self, model: str, usage: dict[str, Any] | None) -> None:
        """DSPy's usage-tracker hook: called once per completed (non-cached) LM call."""
        usage = usage or {}
        for key in self._keys():
            self.prompt_tokens[key] += int(usage.get("prompt_tokens") or 0)
            self.completion_tokens[key] += int(usage.get("completion_tokens") or 0)

    def summary(self) -> dict[str, dict[str, int]]:
        return {"calls": dict(self.calls), "failed": dict(self.failed),
                "prompt_tokens": dict(self.prompt_tokens), "completion_tokens": dict(self.completion_tokens)}


def add_summaries(summaries: list[dict[str, dict[str, int]]]) -> dict[str, dict[str, int]]:
    """Element-wise sum of :meth:`UsageMeter.summary` dicts."""
    total: dict[str, Counter[str]] = {}
    for summary in summaries:
        for field, counts in summary.items():
            total.setdefault(field, Counter()).update(counts)
    return {field: dict(counts) for field, counts in total.items()}

"""Count every LM call of a run (``lm_calls``: the cost axis ``tribunal runs compare`` plots).

A DSPy callback sees each call, including those of LM copies the optimizers make (bootstrap
and SIMBA resample with copies at temperature 1.0), which per-instance histories would miss.
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

from dspy.utils.callback import BaseCallback


class LMCallCounter(BaseCallback):
    """Calls and failed calls per model name, thread-safe."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.failures = 0
        self._models: dict[str, str] = {}
        self._lock = threading.Lock()

    def on_lm_start(self, call_id: str, instance: Any, inputs: dict[str, Any]) -> None:
        with self._lock:
            self._models[call_id] = str(getattr(instance, "model", "unknown"))

    def on_lm_end(self, call_id: str, outputs: Any | None, exception: BaseException | None = None) -> None:
        with self._lock:
            self.calls[self._models.pop(call_id, "unknown")] += 1
            self.failures += exception is not None

    def metrics(self) -> dict[str, float]:
        """``lm_calls``, ``lm_failed_calls``."""
        return {"lm_calls": float(sum(self.calls.values())), "lm_failed_calls": float(self.failures)}

"""The best candidate an optimizer scored before a spending cap stopped it.

Installed as a DSPy callback beside the trial logger (:mod:`tribunal.optimizers.trials`), it keeps
the program of every ``dspy.Evaluate`` that finished while the cap still admitted calls, and the
best of them by its score. An evaluation that ended after the cap refused a call counted refused
items as failures, so its score says nothing of the candidate: it is never kept.
"""

from __future__ import annotations

import threading
from typing import Any

from dspy.utils.callback import BaseCallback


class BestSoFar(BaseCallback):
    """The best fully scored candidate (``program``, ``score`` as a fraction) while ``cap`` admitted calls."""

    def __init__(self, cap: Any):
        self.cap = cap
        self.program: Any = None
        self.score: float | None = None
        self.scored = 0
        self._started: dict[str, Any] = {}
        self._lock = threading.Lock()

    def on_evaluate_start(self, call_id: str, instance: Any, inputs: dict[str, Any]) -> None:
        with self._lock:
            self._started[call_id] = inputs.get("program")

    def on_evaluate_end(self, call_id: str, outputs: Any | None, exception: BaseException | None = None) -> None:
        with self._lock:
            program = self._started.pop(call_id, None)
            score = getattr(outputs, "score", None)
            if program is None or score is None or exception is not None or self.cap.stopped_by is not None:
                return
            self.scored += 1
            if self.score is None or float(score) / 100.0 > self.score:
                self.program, self.score = program, float(score) / 100.0

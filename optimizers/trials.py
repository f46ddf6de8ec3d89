"""One nested MLflow run per optimizer trial, under the optimize run.

A *trial* is one candidate program scored by the optimizer. Most optimizers score candidates
with ``dspy.Evaluate`` (random search, MIPROv2, GEPA's validation passes); a DSPy callback
(``BaseCallback.on_evaluate_end``) logs each as it finishes, so trials survive a crash of the
run. SIMBA scores its final candidates without ``Evaluate``; those are logged from the compiled
program afterwards, and single-candidate optimizers (LabeledFewShot, BootstrapFewShot) get one
trial: the compiled program scored on dev.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from typing import Any, Callable

from dspy.utils.callback import BaseCallback


def candidate_summary(program: Any) -> dict[str, Any]:
    """Per predictor: demo count and the instruction (what optimizers change)."""
    if program is None or not hasattr(program, "named_predictors"):
        return {}
    return {name: {"demos": len(getattr(p, "demos", []) or []), "instructions": p.signature.instructions}
            for name, p in program.named_predictors()}


def _summary_params(summary: dict[str, Any]) -> dict[str, Any]:
    text = json.dumps({k: v["instructions"] for k, v in summary.items()}, sort_keys=True)
    return {"demos": sum(v["demos"] for v in summary.values()),
            "instructions_sha": hashlib.sha256(text.encode()).hexdigest()[:12]}


class TrialLogger(BaseCallback):
    """Logs every ``dspy.Evaluate`` call made while it is installed as a nested ``trial-NNN`` run."""

    def __init__(self, parent: Any, split: str = "dev", on_trial: Callable[[], Any] | None = None):
        self.parent = parent
        self.split = split
        self.on_trial = on_trial  # called after each logged trial (a progress bar)
        self.trials: list[dict[str, Any]] = []
        self._pending: dict[str, tuple[float, dict[str, Any], int]] = {}
        self._lock = threading.Lock()

    def on_evaluate_start(self, call_id: str, instance: Any, inputs: dict[str, Any]) -> None:
        devset = inputs.get("devset") or getattr(instance, "devset", None) or []
        with self._lock:
            self._pending[call_id] = (time.perf_counter(), candidate_summary(inputs.get("program")), len(devset))

    def on_evaluate_end(self, call_id: str, outputs: Any | None, exception: BaseException | None = None) -> None:
        with self._lock:
            started, summary, size = self._pending.pop(call_id, (time.perf_counter(), {}, 0))
        score = getattr(outputs, "score", None)
        self.log(summary, None if score is None else float(score) / 100.0, size, source="evaluate",
                 seconds=time.perf_counter() - started, failed=exception is not None)

    def log(self, summary: dict[str, Any], score: float | None, size: int, source: str,
            seconds: float | None = None, failed: bool = False, split: str | None = None) -> None:
        """Open, fill and close one nested trial run."""
        with self._lock:
            index = len(self.trials) + 1
            record = {"trial": index, "score": score, "examples": size, "source": source, "failed": failed}
            self.trials.append(record)
        params = {"trial": index, "source": source, "split": split or self.split, "examples": size,
                  **_summary_params(summary)}
        started = time.time() - seconds if seconds else None  # the trial's run spans its evaluation
        with self.parent.child(f"trial-{index:03d}", params, started=started) as run:
            run.log_metrics({"score": score, "seconds": seconds, "failed": float(failed)})
            run.log_text(json.dumps(summary, indent=2, ensure_ascii=False), "candidate.json")
        if self.on_trial is not None:
            self.on_trial()


def log_posthoc_candidates(logger: TrialLogger, compiled: Any) -> None:
    """Log the scored candidates an optimizer attached to its result, unless its trials were logged live.

    Only SIMBA gets here (its ``candidate_programs`` are scored on train, as fractions); random search
    and MIPROv2 attach candidates too, but those already went through ``dspy.Evaluate``.
    """
    if logger.trials:
        return
    for candidate in getattr(compiled, "candidate_programs", None) or []:
        score = candidate.get("score")
        logger.log(candidate_summary(candidate.get("program")), None if score is None else float(score),
                   size=0, source="candidate_programs", split="train")

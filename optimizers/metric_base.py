"""The shape every optimizer metric shares: an outcome per item, scored or *unscored*.

DSPy optimizers want one float per (example, prediction). A failed or unparseable prediction
has no honest score; the optimizer still needs a number, so it gets 0 (the worst), but the
metric keeps a separate tally of unscored items so a run record never mistakes a failure for
a judged zero (the inspect_ai convention).

Calling conventions served by one object:
- ``metric(gold, pred, trace=None)`` -> float (LabeledFewShot, Bootstrap*, MIPROv2, SIMBA);
- ``metric.with_feedback`` -> ``(gold, pred, trace, pred_name, pred_trace) -> dspy.Prediction(score,
  feedback)``, the GEPA feedback-metric protocol (dspy/teleprompt/gepa/gepa.py).
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from tribunal.optimizers.group_examples import is_group, member_predictions


@dataclass(frozen=True)
class Outcome:
    """One item's result. ``score is None`` means unscored, and ``reason`` says why."""

    score: float | None
    feedback: str
    reason: str | None = None
    components: dict[str, float] = field(default_factory=dict)

    @property
    def scored(self) -> bool:
        return self.score is not None


def unscored(reason: str) -> Outcome:
    """An outcome for a prediction that cannot be judged."""
    return Outcome(score=None, reason=reason,
                   feedback=f"The program produced no usable answer ({reason}); it must answer in the required format.")


class JudgeMetric(ABC):
    """Base class: subclasses implement :meth:`outcome`; the calling conventions live here."""

    name: str = "metric"
    success_threshold: float = 1.0
    """Score at which a bootstrapped trace counts as a good demo (Bootstrap* ``metric_threshold``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.calls = 0
        self.unscored_reasons: Counter[str] = Counter()

    @abstractmethod
    def judge(self, gold: Any, pred: Any) -> Outcome:
        """Score one prediction against its gold example (``pred`` is never None here)."""

    def outcome(self, gold: Any, pred: Any) -> Outcome:
        """:meth:`judge`, with a missing prediction or a judging error made unscored; a group example (a
        source's candidates judged together, :mod:`tribunal.optimizers.group_examples`) scores the mean of
        its members' outcomes."""
        if is_group(gold):
            return self._group_outcome(gold, pred)
        if pred is None:
            return unscored("no prediction (the program failed)")
        try:
            return self.judge(gold, pred)
        except (AttributeError, KeyError, TypeError, ValueError) as err:
            return unscored(f"unreadable prediction: {type(err).__name__}: {str(err)[:200]}")

    def _group_outcome(self, gold: Any, pred: Any) -> Outcome:
        outcomes = [self.outcome(m, p) for m, p in zip(gold.get("members"), member_predictions(gold, pred))]
        scored = [o for o in outcomes if o.scored]
        if not scored:
            return outcomes[0] if outcomes else unscored("an empty group")
        feedback = " ".join(f"Candidate {n}: {o.feedback}" for n, o in enumerate(outcomes, 1))
        return Outcome(sum(o.score for o in scored) / len(scored), feedback)

    def _record(self, outcome: Outcome) -> float:
        with self._lock:
            self.calls += 1
            if not outcome.scored:
                self.unscored_reasons[outcome.reason or "unknown"] += 1
        return outcome.score if outcome.scored else 0.0

    @property
    def unscored_count(self) -> int:
        """How many metric calls saw an unscored prediction (scored 0 for the optimizer)."""
        return sum(self.unscored_reasons.values())

    def __call__(self, gold: Any, pred: Any, trace: Any = None, pred_name: str | None = None,
                 pred_trace: Any = None) -> float:
        return self._record(self.outcome(gold, pred))

    def with_feedback(self, gold: Any, pred: Any, trace: Any = None, pred_name: str | None = None,
                      pred_trace: Any = None):
        """GEPA's feedback metric: the same score, plus text saying what went wrong."""
        import dspy  # heavy: dspy, pydantic

        outcome = self.outcome(gold, pred)
        return dspy.Prediction(score=self._record(outcome), feedback=outcome.feedback)


def mean_of(components: dict[str, float | None], weights: dict[str, float]) -> tuple[float, dict[str, float]]:
    """Weighted mean over the components that apply to this item (``None`` = not applicable)."""
    present = {k: v for k, v in components.items() if v is not None and weights.get(k, 0) > 0}
    total = sum(weights[k] for k in present)
    score = sum(weights[k] * v for k, v in present.items()) / total if total else 0.0
    return score, present

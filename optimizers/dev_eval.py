"""Score a program on dev with the optimizer's metric, keeping unscored items apart.

``score`` is what an optimizer sees (unscored items count 0); ``scored_mean`` averages only the
items that could be judged, ``unscored`` says how many could not and why, and ``degraded`` how many
were scored with a fallback after a role stayed unusable (:mod:`tribunal.programs.fallbacks`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

from tribunal.core.degraded_role import DegradedRole
from tribunal.core.mt_judgment import MTJudgment, MalformedJudgment
from tribunal.optimizers.metric_base import JudgeMetric, Outcome, unscored


@dataclass
class DevScore:
    outcomes: list[Outcome]
    reasons: Counter = field(default_factory=Counter)
    predictions: list[Any] = field(default_factory=list)
    """The program's prediction per item (None where it failed), for corpus-level objectives."""

    @property
    def n(self) -> int:
        return len(self.outcomes)

    @property
    def scored(self) -> int:
        return sum(o.scored for o in self.outcomes)

    @property
    def unscored(self) -> int:
        return self.n - self.scored

    @property
    def degraded(self) -> int:
        """Items scored with a fallback standing in for a role that stayed unusable (M-MAD's debates)."""
        return sum(bool(_degradations(p)) for p, o in zip(self.predictions, self.outcomes) if o.scored)

    @property
    def score(self) -> float:
        return sum(o.score or 0.0 for o in self.outcomes) / self.n if self.n else 0.0

    @property
    def scored_mean(self) -> float | None:
        return sum(o.score for o in self.outcomes if o.scored) / self.scored if self.scored else None

    def metrics(self, prefix: str) -> dict[str, float | None]:
        """``{prefix}score``, ``{prefix}scored_mean``, ``{prefix}unscored``, ``{prefix}degraded`` for a run record."""
        return {f"{prefix}score": self.score, f"{prefix}scored_mean": self.scored_mean,
                f"{prefix}unscored": float(self.unscored), f"{prefix}degraded": float(self.degraded)}

    def counts(self) -> dict[str, int]:
        """``{items, scored, unscored, degraded}`` for the dev report."""
        return {"items": self.n, "scored": self.scored, "unscored": self.unscored, "degraded": self.degraded}

    def rows(self) -> list[dict[str, Any]]:
        """One record per item (for the per-item artifact)."""
        return [{"item": i, "score": o.score, "unscored_reason": o.reason, **o.components}
                for i, o in enumerate(self.outcomes)]


def _degradations(prediction: object) -> list[DegradedRole]:
    """The fallbacks a prediction's judgment records (:meth:`MTJudgment.of`), none when it has no judgment
    (no prediction, or a judge of another kind)."""
    try:
        return MTJudgment.of(prediction).degraded
    except MalformedJudgment:
        return []


def evaluate_program(program: Any, examples: list[Any], metric: JudgeMetric, threads: int = 4,
                     on_item: Callable[[], Any] | None = None) -> DevScore:
    """Run ``program`` on every example (bounded concurrency) and judge it; failures are unscored.

    ``on_item()`` is called as each example is done (a progress bar).
    """
    from dspy.utils.parallelizer import ParallelExecutor  # heavy: dspy, pydantic

    from tribunal.programs.answers.failures import ANSWER_FAILURES, is_answer_failure  # DSPy loads with the first evaluation

    def judged(example: Any) -> tuple[Any, Outcome]:
        try:
            prediction = program(**example.inputs())
        except ANSWER_FAILURES as err:  # an LM or answer failure makes the item unscored, never a silent zero; a bug propagates
            if not is_answer_failure(err):  # tribunal's own (the local server is gone): the run stops
                raise
            return None, unscored(f"program failed: {type(err).__name__}: {str(err)[:200]}")
        except MalformedJudgment as err:  # validated where the program returned it: unscored, as in the runner
            return None, unscored(f"malformed judgment: {err}")
        return prediction, metric.outcome(example, prediction)

    bugs: list[Exception] = []

    def one(example: Any) -> tuple[Any, Outcome] | None:
        try:
            result = judged(example)
        except Exception as bug:  # noqa: BLE001 - carried out of DSPy's executor (which would log it and go on), raised below
            bugs.append(bug)
            return None
        if on_item is not None:
            on_item()
        return result

    executor = ParallelExecutor(num_threads=max(1, threads), disable_progress_bar=True, max_errors=len(examples) + 1)
    done = executor.execute(one, examples)
    if bugs:
        raise bugs[0]
    results = [r if r is not None else (None, unscored("evaluation thread failed")) for r in done]
    outcomes = [outcome for _, outcome in results]
    return DevScore(outcomes, Counter(o.reason for o in outcomes if not o.scored), [p for p, _ in results])

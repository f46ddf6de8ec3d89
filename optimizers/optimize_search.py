"""The tuning part of a ``tribunal optimize`` run: the untuned program scored on dev, the optimizer's
search (trials logged, stopped by the spending cap if one refuses a call), and the choice of the tuned
program (by the objective among the finalists, rejected if too often unusable)."""

from __future__ import annotations

import contextlib
import io
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

from tribunal.errors import SpendingCapReached, UserError
from tribunal.optimizers.dev_eval import DevScore, evaluate_program
from tribunal.optimizers.dev_reliability import unreliable
from tribunal.optimizers.dev_report import log_scores
from tribunal.optimizers.metric_base import unscored
from tribunal.optimizers.objective_report import ObjectiveScores, score_both
from tribunal.optimizers.objective_selection import select_by_objective
from tribunal.optimizers.optimize_setup import OptimizeSetup
from tribunal.optimizers.registry import run_plan

Progress = Callable[[str, int, int | None], Any]


@dataclass
class TuningOutcome:
    """What the tuning found, filled phase by phase: dev scores, the search's trials and result, the choice."""

    untuned: DevScore
    scores: dict[str, ObjectiveScores] = field(default_factory=dict)
    trials: Any = None
    best: Any = None
    """The :class:`~tribunal.optimizers.best_so_far.BestSoFar` callback, under a cap."""
    stopped: str | None = None
    compiled: Any = None
    """The program exported: the tuned one, or the untuned one when the tuned was rejected."""
    candidate: Any = None
    """The program the search and selection chose (before the reliability check)."""
    selection: Any = None
    tuned: DevScore | None = None
    rejected: DevScore | None = None
    rejected_reason: str | None = None


def progress_stage(progress: Progress | None, label: str, total: int | None) -> Callable[[], None]:
    """A callback counting one step of ``label`` on ``progress(label, done, total)`` (a no-op without it)."""
    if progress is None:
        return lambda: None
    lock, done = threading.Lock(), [0]
    progress(label, 0, total)

    def advance() -> None:
        with lock:
            done[0] += 1
            progress(label, done[0], total)

    return advance


def score_untuned(setup: OptimizeSetup, run: Any, counter: Any, progress: Progress | None) -> TuningOutcome:
    """Score the untuned program on dev and log it; stop if it scored nothing (a wrong model, endpoint or
    key) or the cap was reached, before the optimizer pays for anything."""
    import dspy  # heavy: dspy

    dev, request = setup.dev, setup.request
    try:
        with dspy.context(lm=setup.lms.task, callbacks=[counter], usage_tracker=counter):
            untuned = evaluate_program(setup.resolved.program, dev.examples, setup.metric, request.threads,
                                       progress_stage(progress, "dev set, untuned", len(dev.examples)))
    except SpendingCapReached as err:
        raise SpendingCapReached(f"{err}: stopped in the untuned dev evaluation, before any trial; "
                                 "nothing exported") from None
    outcome = TuningOutcome(untuned, {"untuned": score_both(setup.objective, untuned.predictions, dev.examples,
                                                            request.seed)})
    log_scores(run, untuned, "untuned", outcome.scores["untuned"])
    if untuned.scored == 0:
        reason, _ = untuned.reasons.most_common(1)[0]
        raise UserError(f"every dev item failed with the untuned program (e.g. {reason}); check --lm / --api-base")
    return outcome


def search(setup: OptimizeSetup, outcome: TuningOutcome, run: Any, counter: Any, cap: Any,
           progress: Progress | None) -> None:
    """Run the optimizer's plan, each trial logged; under a cap that stopped it, its result is the best
    candidate scored in full before that (the untuned program if none). The optimizer's output is logged
    as ``optimizer.log``."""
    import dspy  # heavy: dspy

    from tribunal.optimizers.best_so_far import BestSoFar  # heavy: pulls in dspy
    from tribunal.optimizers.trials import TrialLogger, log_posthoc_candidates  # heavy: pulls in dspy

    trials = TrialLogger(run, on_trial=progress_stage(progress, f"{setup.spec.name} trials", None))
    log = io.StringIO()
    best = BestSoFar(cap) if cap is not None else None
    counter.phase = "search"
    try:
        with dspy.context(lm=setup.lms.task, callbacks=[trials, counter, *([best] if best else [])],
                          usage_tracker=counter), contextlib.redirect_stdout(log):
            compiled = run_plan(setup.configured, setup.resolved.program, setup.train.examples, setup.request.seed)
    except Exception:  # noqa: BLE001 - only a cap's stop is kept (its best candidate); anything else propagates
        if cap is None or cap.stopped_by is None:
            raise
        compiled = None
    finally:
        counter.phase = "dev"
    stopped = cap.stopped_by if cap is not None else None
    if stopped:  # the optimizer's own choice saw refused calls as failures: the best full trial instead
        compiled = best.program if best.program is not None else setup.resolved.program
    run.log_text(log.getvalue() or "(no output)\n", "optimizer.log")
    log_posthoc_candidates(trials, compiled)
    outcome.trials, outcome.best, outcome.stopped, outcome.compiled = trials, best, stopped, compiled


def choose_tuned(setup: OptimizeSetup, outcome: TuningOutcome, run: Any, counter: Any,
                 progress: Progress | None) -> None:
    """Choose the tuned program by the objective among the finalists (not after a cap's stop), score it
    on dev and keep the untuned program instead if the tuned one is too often unusable."""
    import dspy  # heavy: dspy

    from tribunal.optimizers.trials import candidate_summary  # heavy: pulls in dspy

    dev, metric, request, objective = setup.dev, setup.metric, setup.request, setup.objective

    def rescore(program: Any) -> DevScore:
        with dspy.context(lm=setup.lms.task, callbacks=[counter], usage_tracker=counter):
            return evaluate_program(program, dev.examples, metric, request.threads)

    def log_finalist(finalist: Any) -> None:
        outcome.trials.log(candidate_summary(finalist.program), finalist.objective, len(dev.examples),
                           source=f"objective:{finalist.source}")

    if not outcome.stopped:  # re-scoring finalists costs calls a stopped run may not make
        outcome.selection = select_by_objective(outcome.compiled, objective, rescore, dev.examples,
                                                on_scored=log_finalist, untuned=outcome.untuned)
        outcome.compiled = outcome.selection.program
    tuned = rescored_on_dev(outcome.compiled, dev.examples, metric, request.threads, setup.lms.task, counter,
                            progress_stage(progress, "dev set, tuned", len(dev.examples)))
    outcome.candidate, outcome.rejected_reason = outcome.compiled, unreliable(tuned, outcome.untuned)
    if outcome.rejected_reason is not None:  # too often unusable: not exported, the untuned program stands
        outcome.rejected, outcome.compiled, tuned = tuned, setup.resolved.program, outcome.untuned
        log_scores(run, outcome.rejected, "rejected", score_both(objective, outcome.rejected.predictions,
                                                                 dev.examples, request.seed))
        run.set_tags({"tribunal.tuned_rejected": outcome.rejected_reason})
    outcome.tuned = tuned
    outcome.scores["tuned"] = score_both(objective, tuned.predictions, dev.examples, request.seed)
    log_scores(run, tuned, "tuned", outcome.scores["tuned"])


def rescored_on_dev(program: Any, examples: list[Any], metric: Any, threads: int, lm: Any, counter: Any,
                    on_item: Callable[[], None]) -> DevScore:
    """``program``'s dev score; under a cap that stopped, a call the cache cannot answer unscores its item."""
    import dspy  # heavy: dspy

    try:
        with dspy.context(lm=lm, callbacks=[counter], usage_tracker=counter):
            return evaluate_program(program, examples, metric, threads, on_item)
    except SpendingCapReached:
        return DevScore([unscored("not scored: the spending cap was reached")] * len(examples),
                        Counter({"not scored: the spending cap was reached": len(examples)}), [None] * len(examples))

"""``tribunal optimize``: tune a judge against human labels, track every trial, export the result.

One parent MLflow run holds the params (program and its ``--set`` config, optimizer, budget and its
knobs, LM per role, data slices and hashes, seed), the reproducibility signature, the objective
(``--objective``) and the item metric of the untuned and tuned program on dev, each with a seeded
bootstrap interval, and the exported program (artifact ``program/program.json``, and the same as an
MLflow model registered as a version of ``tribunal-<program>``); each trial is a nested run.
"""

from __future__ import annotations

import time
from typing import Any

from tribunal.eval.tracking.mlflow_run import tracked_run
from tribunal.optimizers.optimize_export import ARTIFACT_DIR, ARTIFACT_NAME, export_tuned, log_outcome
from tribunal.optimizers.optimize_request import METRICS, OptimizeRequest, OptimizeResult
from tribunal.optimizers.optimize_search import Progress, choose_tuned, score_untuned, search
from tribunal.optimizers.optimize_setup import load_job_inputs, prepare_job, run_params, run_signature
from tribunal.optimizers.optimize_summary import optimize_run_summary, write_optimize_summary

__all__ = ["ARTIFACT_DIR", "ARTIFACT_NAME", "METRICS", "OptimizeRequest", "OptimizeResult", "load_job_inputs",
           "run_optimize"]


def run_optimize(request: OptimizeRequest, tracking: Any, progress: Progress | None = None,
                 cap: Any = None) -> OptimizeResult:
    """Run the whole job; user errors are raised before any LM call or run is made.

    ``progress(label, done, total)`` follows the dev evaluations and the optimizer's trials.
    ``cap`` (a :class:`~tribunal.runner.spending_cap.SpendingCap`) bounds every call of the job, over
    all trials: once it refuses one, the optimizer's result is the best candidate it scored in full
    before that (:mod:`tribunal.optimizers.best_so_far`; the untuned program if none), scored on dev
    from the response cache, exported and logged as usual, and ``stopped_by`` says so.
    """
    from tribunal.optimizers.lm_calls import LMCallCounter  # heavy: pulls in dspy
    from tribunal.optimizers.optimize_run import log_training_inputs, optimize_run_name  # heavy: pulls in pandas, pyarrow

    started = time.perf_counter()
    setup = prepare_job(request, tracking, cap)
    sig = run_signature(setup)
    name = optimize_run_name(setup.resolved.label, setup.spec.name, request.lm, setup.train.spec)
    with tracked_run(tracking, name, run_params(setup), tags={"tribunal.command": "optimize"}, signature=sig) as run:
        log_training_inputs(run, train=setup.train, dev=setup.dev)
        counter = LMCallCounter()
        outcome = score_untuned(setup, run, counter, progress)
        search(setup, outcome, run, counter, cap, progress)
        choose_tuned(setup, outcome, run, counter, progress)
        report = log_outcome(setup, outcome, run, counter, cap)
        model, status = export_tuned(setup, outcome, run, sig, report, cap)
    result = OptimizeResult(setup.out, run.run_id, sig, outcome.untuned, outcome.tuned, len(outcome.trials.trials),
                            outcome.compiled, model=model,
                            skipped={"train": setup.train.skipped, "dev": setup.dev.skipped},
                            objective=setup.objective.name, scores=outcome.scores, selection=outcome.selection,
                            rejected=outcome.rejected, rejected_reason=outcome.rejected_reason,
                            stopped_by=outcome.stopped, cap=status)
    result.run_summary = optimize_run_summary(result, counter.summary(), setup.lms.models,
                                              time.perf_counter() - started)
    write_optimize_summary(result.run_summary)
    return result

"""One MT judge run end to end: select items, judge the unfinished ones, write, evaluate, track.

The parts, in the order a run meets them: :mod:`~tribunal.eval.mt.job_plan` (data, items, journal,
signature), :mod:`~tribunal.eval.mt.job_judging` (batch, processes or threads; interruptions),
:mod:`~tribunal.eval.mt.job_results` (files, meta-evaluation, summary, page) and
:mod:`~tribunal.eval.mt.job_tracking` (what MLflow gets).
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from tribunal.errors import UserError
from tribunal.eval.mt.config import EvaluateConfig
from tribunal.eval.tracking.mlflow_run import TrackingSettings
from tribunal.data.folder_lock import folder_lock
from tribunal.data.output_paths import writable_folder
from tribunal.eval.mt.evaluation_result import EvaluationResult
from tribunal.eval.mt.job_judging import judge_pending
from tribunal.eval.mt.job_plan import plan_job
from tribunal.eval.mt.job_results import evaluate_job
from tribunal.eval.mt.job_tracking import track_run
from tribunal.eval.tracking.mlflow_run import check_store
from tribunal.eval.tracking.mt_run import open_mt_run
from tribunal.eval.mt.judge_builder import program_factory

__all__ = ["EvaluationResult", "check_cap", "check_together", "run_evaluation"]


def _out_locked(run: Callable[..., EvaluationResult]) -> Callable[..., EvaluationResult]:
    """Check ``--out`` and the tracking store before any work, and hold ``--out``'s lock for the run.

    A read-only folder or an unusable store fails before the first LM call; a second run on the
    same folder gets :class:`~tribunal.errors.FolderBusy` instead of judging everything again.
    """

    @functools.wraps(run)
    def locked(config: EvaluateConfig, tracking: TrackingSettings, *args: Any, **kwargs: Any) -> EvaluationResult:
        writable_folder(config.output_dir, "--out")
        check_store(tracking)
        with folder_lock(config.output_dir):
            return run(config, tracking, *args, **kwargs)

    return locked


@_out_locked
def run_evaluation(config: EvaluateConfig, tracking: TrackingSettings, engine: Any = None,
                   progress: Callable[[int, int], Any] | None = None,
                   trace_sample: float | None = None, cap: Any = None) -> EvaluationResult:
    """Judge, write the outputs, meta-evaluate the covered cells and log the run.

    ``cap`` (a :class:`~tribunal.runner.spending_cap.SpendingCap`): the run stops admitting items
    before its calls could pass ``--max-cost`` / ``--max-calls``; the items it left are judged by a
    rerun (``summary.json`` and :attr:`EvaluationResult.run_summary` say so).

    ``progress(done, total)`` is called after each item; ``engine`` replaces the HTTP engine (tests).
    Ctrl-C ends the run with :class:`~tribunal.errors.Interrupted` once the items in flight are
    journaled; a full disk with a :class:`JournalWriteError` that says how many items are kept.
    Neither writes a result file.
    The MLflow run is opened before the work and gets a trace per judged item as it lands
    (``trace_sample``: see :mod:`tribunal.eval.tracking.traces`).
    """
    if config.data is None:
        raise ValueError("no data folder given")
    if cap is not None and cap.active:
        check_cap(config, cap)
    if config.judge.together:
        check_together(config)
    plan = plan_job(config)
    with open_mt_run(tracking, config, plan.items, plan.pair, plan.languages, plan.run_signature,
                     trace_sample) as tracker:
        tracker.start(plan.slice_hash, lambda: program_factory(config, engine)())
        landed = _landing(tracker, plan.total, plan.resumed, progress)
        judged = judge_pending(config, plan, engine, cap, landed)
        result = evaluate_job(config, plan, judged, cap, tracker.run.run_id)
        result.run_id = track_run(tracker.run, config, result, plan.journal.path, tracker.finish(result.results))
    return result


def _landing(tracker: Any, total: int, done: int, progress: Callable[[int, int], Any] | None) -> Callable[[Any], None]:
    """What is done with each result as it lands: its trace, and ``progress`` (told of the resumed items now)."""
    counter = {"done": done}

    def landed(result: Any) -> None:
        counter["done"] = min(total, counter["done"] + 1)  # an item the second pass judges lands twice
        tracker.landed(result)
        if progress:
            progress(counter["done"], total)

    if progress:
        progress(done, total)
    return landed


def check_together(config: EvaluateConfig) -> None:
    """Refuse what a judge of a source's candidates together does not take, before any call."""
    refused = [flag for flag, used in (("--batch", config.batch.enabled), ("--processes above 1", config.processes > 1),
                                       ("--samples", config.sampling.used), ("--reference / --context", config.segment.used))
               if used]
    if refused:
        raise UserError(f"--program {config.program} judges a source's candidates together: not with {', '.join(refused)}")


def check_cap(config: EvaluateConfig, cap: Any) -> None:
    """Refuse a cap this run could not honour, before any call."""
    if config.batch.enabled:
        raise UserError("--max-cost / --max-calls: not with --batch (a batch is priced when it is collected)")
    if config.processes > 1:
        raise UserError("--max-cost / --max-calls: not with --processes above 1 (the cap's ledger is one process's)")
    cap.check_models([config.lm.model, *(own.model for own in config.role_lms.values())])

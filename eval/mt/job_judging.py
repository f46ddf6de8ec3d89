"""Judging a run's pending items: through the provider's batch API, in worker processes, or in this
process's threads or coroutines; then a second pass over the items a transient failure left unscored.

Ctrl-C, a full disk and a lost local server end the judging once the items in flight are journaled,
with an error that says how many items are kept and how to resume.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

from tribunal.errors import Interrupted
from tribunal.eval.mt.async_judging import RUNNERS
from tribunal.eval.mt.batch.runner import judge_in_batches
from tribunal.eval.mt.config import EvaluateConfig
from tribunal.eval.mt.job_plan import JobPlan
from tribunal.eval.mt.journal import JournalWriteError
from tribunal.eval.mt.judge_builder import program_factory
from tribunal.eval.mt.second_pass import SecondPass, run_second_pass
from tribunal.programs.server_lost import LocalServerLost
from tribunal.runner.connections import server_bound


@dataclass
class JudgingOutcome:
    batch_stats: dict | None  # the batches' figures, for a --batch run
    second: SecondPass  # what the second pass recovered
    started: float  # perf_counter() when judging began: data, demos and worker start-up are not LM work
    wall: float  # seconds of judging


def judge_pending(config: EvaluateConfig, plan: JobPlan, engine: Any, cap: Any,
                  landed: Callable[[Any], None]) -> JudgingOutcome:
    """Judge ``plan.pending`` into its journal, calling ``landed`` with each result as it lands."""
    clock = {"start": time.perf_counter()}

    def start_clock() -> None:  # judging only: data, demos and worker start-up are not LM work
        clock["start"] = time.perf_counter()

    batch_stats, second = None, SecondPass()
    try:
        if plan.pending and config.batch.enabled:
            batch_stats = judge_in_batches(config, plan.pending, plan.languages, plan.journal, landed, start_clock)
        elif plan.pending and config.processes > 1 and engine is None:
            second = _judge_in_processes(config, plan, landed, start_clock)
        elif plan.pending:
            second = _judge_here(config, plan, engine, cap, landed, start_clock)
    except (KeyboardInterrupt, JournalWriteError, LocalServerLost) as err:  # counted once the items in flight landed
        raise _kept_error(err, plan) from None
    return JudgingOutcome(batch_stats, second, clock["start"], time.perf_counter() - clock["start"])


def _judge_in_processes(config: EvaluateConfig, plan: JobPlan, landed: Callable[[Any], None],
                        start_clock: Callable[[], None]) -> SecondPass:
    """Worker processes sharing ``--concurrency`` calls."""
    from tribunal.eval.mt.processes import judge_in_processes  # read when called: tests patch it

    program_factory(config)  # bad settings or data fail here, with their own message, before any worker
    bound = server_bound(config.lm, config.role_lms, config.concurrency)  # servers known once LMs are built

    def judge_split(chosen: list[Any], into: Any, ready: Any = None) -> None:
        judge_in_processes(config.model_copy(update={"concurrency": bound}), chosen, plan.languages, into,
                           landed, ready)

    judge_split(plan.pending, plan.journal, start_clock)  # the clock starts once, when the workers are ready
    return run_second_pass(plan.pending, plan.journal, judge_split) if config.lm.reasks > 0 else SecondPass()


def _judge_here(config: EvaluateConfig, plan: JobPlan, engine: Any, cap: Any, landed: Callable[[Any], None],
                start_clock: Callable[[], None]) -> SecondPass:
    """This process's threads or coroutines (``--judging``), under the spending cap."""
    make_program = program_factory(config, engine, cap)
    start_clock()
    judge_items = RUNNERS[config.judging]

    def judge(chosen: list[Any], into: Any) -> None:
        judge_items(make_program, chosen, plan.languages, into,
                    server_bound(config.lm, config.role_lms, config.concurrency), landed,
                    fan_out=config.fan_out, sampling=config.sampling, cap=cap,
                    together=config.judge.together)

    judge(plan.pending, plan.journal)
    if config.lm.reasks > 0 and not (cap is not None and cap.stopped_by):
        return run_second_pass(plan.pending, plan.journal, judge)
    return SecondPass()


def _kept_error(err: BaseException, plan: JobPlan) -> Exception:
    """The error that ends an interrupted run, saying how many items its journal keeps and how to resume."""
    journal = plan.journal
    kept = sum(key in journal.results for key in plan.items.items)
    if isinstance(err, LocalServerLost):  # a rerun as it is would crash the same server again
        return err.kept(f"{kept} of {plan.total} items are journaled in {journal.path}; with this --out a run "
                        "resumes from them once the server runs, e.g. after `tribunal local install`, or "
                        "with another --lm")
    if isinstance(err, KeyboardInterrupt):
        return Interrupted(f"interrupted: {kept} items journaled; rerun the same command to resume")
    return JournalWriteError(f"{err} ({kept} items journaled; free space, then rerun the same command "
                             "to resume)")

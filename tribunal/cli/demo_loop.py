"""The demo's whole loop: judge, tune with ``labeled``, export, judge with the tuned program, compare.

Each step reuses the job behind its command (``mt evaluate``, ``optimize``, ``export``,
``runs compare``) and runs under :class:`~tribunal.cli.demo_steps.DemoSteps`, so a failed step is
one line and the steps that do not need its result still run. GEMBA-MQM is the judge: one call per
item, the cheapest MT judge that shows the loop. On the bundled 135M model the loop is small
(:data:`SMALL`: 2 items judged twice, 2 dev items scored twice), a minute or two on 2 cores.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, Field

from tribunal.cli.console import line
from tribunal.cli.mt_evaluate import run_and_report
from tribunal.cli.numbers import number
from tribunal.cli.progress import progress_bars
from tribunal.cli.runs import compare_runs
from tribunal.service.judging import JobRequest, configure

PROGRAM = "gemba-mqm"
TUNED_NAME = "GEMBA-MQM-tuned"


class LoopPlan(BaseModel):
    """How much the loop does: items judged before and after tuning, the TED MQM slices, the demos."""

    model_config = ConfigDict(extra="forbid")

    lp: str = "zh-en"
    judged: int = Field(ge=1, description="rated WMT23 items judged by the untuned and by the tuned program")
    train: str = Field(description="the labelled demos' pool (an mqm-ted SPEC)")
    dev: str = Field(description="what the optimizer scores untuned and tuned on (an mqm-ted SPEC)")
    budget: int = Field(ge=1, description="labelled demos per predictor")
    concurrency: int = Field(ge=1, description="LM calls in flight")


@dataclass
class LoopOutcome:
    """What the loop left in MLflow: the two judge runs compared, the optimize run, the registered model."""

    compared: list[str] = field(default_factory=list)
    tuned_run: Optional[str] = None
    model: Optional[str] = None


SMALL = LoopPlan(judged=2, train="mqm-ted:zh-en:0-8", dev="mqm-ted:zh-en:8-10", budget=2, concurrency=1)
"""The bundled 135M model: about 8 calls, seconds each on 2 cores."""
FULL = LoopPlan(judged=5, train="mqm-ted:zh-en:0-40", dev="mqm-ted:zh-en:40-50", budget=4, concurrency=4)
"""A real LM (--lm): a few more items, still cheap."""


def run_loop(steps: Any, console: Any, wmt23: Path, out: Path, tracking: Any, lm: Any, plan: LoopPlan,
             first: int = 5, cap: Any = None) -> LoopOutcome:
    """The loop's steps, numbered from ``first``; the LM steps (the judging and the tuning) under ``cap``,
    the demo's one :class:`~tribunal.runner.spending_cap.SpendingCap` (skipped once it has stopped)."""
    folder = out / "loop"
    judge_1, tune_step, export_step, judge_2, compare_step = (f"{first + i}. {name}" for i, name in enumerate(
        ("judge (GEMBA-MQM, untuned)", "tune (labeled)", "export", "judge (tuned)", "compare")))
    where = f"{plan.judged} WMT23 {plan.lp} items with {lm.model}"
    untuned = steps.run_lm(judge_1, judge, console, f"{first}. GEMBA-MQM, untuned, on {where}", wmt23,
                           folder / "untuned", tracking, lm, plan, cap=cap)
    tuned = steps.run_lm(tune_step, tune, console, f"{first + 1}. GEMBA-MQM tuned with labeled", folder, tracking,
                         lm, plan, cap=cap)
    retuned = None
    if tuned is None:
        for name in (export_step, judge_2):
            steps.skip(name, f"needs the tuned program ({tune_step} {_outcome(steps, tune_step)})")
    else:
        program_file: Optional[Path] = tuned.out
        if tuned.run_id:
            program_file = steps.run(export_step, export_program, console, f"{first + 2}. The tuned program exported",
                                     tuned.run_id, folder / "tuned.json", tracking)
        else:
            steps.skip(export_step, "tracking is off (--no-track): the optimizer's own file is judged with")
        if program_file is None:
            steps.skip(judge_2, f"needs the exported program ({export_step} failed)")
        else:
            retuned = steps.run_lm(judge_2, judge, console,
                                   f"{first + 3}. The tuned GEMBA-MQM ({program_file}) on {where}",
                                   wmt23, folder / "tuned", tracking, lm, plan, program_file, cap=cap)
    runs = [r.run_id for r in (untuned, retuned) if r is not None and r.run_id]
    if len(runs) == 2:
        steps.run(compare_step, compare, console, f"{first + 4}. The untuned and the tuned judge compared", runs,
                  folder / "compare", tracking)
    else:
        steps.skip(compare_step, "tracking is off (--no-track)" if not tracking.enabled
                   else "needs both judge runs (a step above failed or was skipped)")
    model = getattr(tuned, "model", None)
    return LoopOutcome(runs, getattr(tuned, "run_id", None), model.registered_name if model is not None else None)


def _outcome(steps: Any, name: str) -> str:
    return "was skipped" if name in steps.skipped else "failed"


def judge(console: Any, title: str, wmt23: Path, folder: Path, tracking: Any, lm: Any, plan: LoopPlan,
          program_file: Optional[Path] = None, cap: Any = None) -> Any:
    """``mt evaluate --program gemba-mqm`` (or ``--program FILE``) on the plan's rated items."""
    console.rule(title)
    fields: dict[str, Any] = {"data": wmt23, "lp": plan.lp, "program": PROGRAM, "lm": lm, "limit": plan.judged,
                              "rated_only": True, "concurrency": plan.concurrency, "out": folder}
    if program_file is not None:  # the export brings its program, settings and seal (the service reads it)
        fields.update(program=str(program_file), name=TUNED_NAME)
    return run_and_report(configure(JobRequest(given=fields)), tracking, cap=cap)


def tune(console: Any, title: str, folder: Path, tracking: Any, lm: Any, plan: LoopPlan, cap: Any = None) -> Any:
    """``optimize --program gemba-mqm --optimizer labeled`` on the plan's TED MQM slices."""
    from tribunal.optimizers.optimize_job import OptimizeRequest, run_optimize  # heavy: pulls in scipy, numpy

    console.rule(f"{title} ({plan.budget} TED MQM demos from {plan.train}; dev {plan.dev})")
    request = OptimizeRequest(program=PROGRAM, optimizer="labeled", train=plan.train, dev=plan.dev, lm=lm.model,
                              api_base=lm.api_base, api_key_env=lm.api_key_env, budget=plan.budget,
                              threads=plan.concurrency, cache=lm.cache, reasks=lm.reasks, max_tokens=lm.max_tokens,
                              timeout=lm.timeout, out=folder / f"{PROGRAM}-labeled.json")
    with progress_bars() as report:
        result = run_optimize(request, tracking, progress=report, cap=cap)
    line(console, f"dev score: untuned {number(result.untuned.score)} -> tuned {number(result.tuned.score)} "
                  f"({result.tuned.unscored} unscored of {result.tuned.n}); {result.trials} trial(s)")
    line(console, f"program: {result.out}")
    if result.run_id:
        line(console, f"run: {result.run_id}")
    return result


def export_program(console: Any, title: str, run_id: str, path: Path, tracking: Any) -> Path:
    """``tribunal export RUN --out FILE``: the tuned program, fetched from its run and verified."""
    from tribunal.optimizers.run_export import export_run  # heavy: pulls in scipy, numpy

    console.rule(f"{title} from run {run_id}")
    written, document = export_run(tracking, run_id, path)
    metadata = document.get("metadata", {})
    line(console, f"{document['program']['name']} (optimizer {metadata.get('optimizer')}, dev score "
                  f"{number(metadata.get('dev_score'), 'not recorded')}) -> {written}")
    return written


def compare(console: Any, title: str, run_ids: list[str], folder: Path, tracking: Any) -> None:
    """``tribunal runs compare UNTUNED TUNED``: side by side, plots in ``folder``."""
    console.rule(title)
    compare_runs(run_ids=run_ids, experiment=None, filter_string="", quality=None, cost="lm_calls",
                 step_metric=None, out=folder, tracking_uri=tracking.uri, no_track=not tracking.enabled,
                 labels=["untuned", "tuned"])

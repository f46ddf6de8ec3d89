"""``tribunal optimize``: tune a judge against human labels, track every trial, export the result.

One parent MLflow run holds the params (program and its ``--set`` config, optimizer, budget and its
knobs, LM per role, data slices and hashes, seed), the reproducibility signature, the objective
(``--objective``) and the item metric of the untuned and tuned program on dev, each with a seeded
bootstrap interval, and the exported program (artifact ``program/program.json``, and the same as an
MLflow model registered as a version of ``tribunal-<program>``); each trial is a nested run.
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict, Field

from tribunal.core.judges import JUDGES
from tribunal.errors import SpendingCapReached, UserError
from tribunal.eval.mt.run_summary import cap_status
from tribunal.eval.tracking.run_signatures import OptimizeSignature
from tribunal.optimizers.dev_eval import DevScore, evaluate_program
from tribunal.optimizers.dev_reliability import MAX_UNSCORED_SHARE, SLACK, unreliable, unscored_rule
from tribunal.optimizers.metric_base import unscored
from tribunal.optimizers.equiv_metric import EquivalenceMetric
from tribunal.optimizers.group_examples import group_by_source
from tribunal.optimizers.mt_metric import MQMMetric
from tribunal.optimizers.objective_report import ObjectiveScores
from tribunal.optimizers.registry import TuningContext, optimizer_spec, plan, run_plan
from tribunal.eval.data.output_paths import writable_file
from tribunal.eval.data.program_export import export_document, write_export
from tribunal.eval.tracking.mlflow_run import tracked_run
from tribunal.optimizers.judge_model_log import log_judge_model
from tribunal.optimizers.lm_roles import build_role_lms
from tribunal.optimizers.objective_report import DRAWS, LEVEL, score_both
from tribunal.optimizers.objective_selection import select_by_objective
from tribunal.optimizers.objectives import parse_objective
from tribunal.optimizers.optimize_summary import optimize_run_summary, optimize_usage_metrics, write_optimize_summary
from tribunal.optimizers.program_source import resolve_program
from tribunal.optimizers.training_data import check_disjoint, load_training_data
from tribunal.programs.lm import endpoint_label

METRICS = {"mt": MQMMetric, "equiv": EquivalenceMetric}
ARTIFACT_DIR, ARTIFACT_NAME = "program", "program.json"


class OptimizeRequest(BaseModel):
    """What ``tribunal optimize`` was asked to do."""

    model_config = ConfigDict(extra="forbid")

    program: str
    optimizer: str
    settings: dict[str, str] = Field(default_factory=dict, description="--set KEY=VALUE program settings.")
    train: str
    dev: str
    lm: str
    api_base: str | None = None
    api_key_env: str | None = Field(None, description="Environment variable holding the API key (its name only).")
    teacher_lm: str | None = None
    prompt_lm: str | None = None
    budget: int | None = Field(None, description="Default: the optimizer's own default.")
    seed: int = 0
    threads: int = Field(4, ge=1)
    cache: bool = Field(True, description="Reuse DSPy's response cache (answers from it cost nothing).")
    reasks: int = Field(2, ge=0, le=10, description="Times an unusable answer is asked again (--reasks).")
    max_tokens: int | None = Field(None, gt=0, description="Most tokens an answer may have (every role).")
    timeout: float | None = Field(None, gt=0, description="Seconds to wait for an answer (every role).")
    rpm: float | None = Field(None, gt=0, allow_inf_nan=False, description="Requests per minute the provider "
                                                                         "allows each model (--rpm): paced to it.")
    tpm: float | None = Field(None, gt=0, allow_inf_nan=False, description="Tokens per minute the provider "
                                                                         "allows each model (--tpm): paced to it.")
    demos: int = Field(4, ge=0, description="Demo cap for optimizers whose budget is not demos.")
    objective: str = Field("item", description="What candidates are chosen by: item, seg-acc-eq, kendall, pearson, "
                                               "balanced-accuracy, f1-different or a mix NAME=W,NAME=W.")
    out: Path | None = None


@dataclass
class OptimizeResult:
    out: Path
    run_id: str | None
    signature: str
    untuned: DevScore
    tuned: DevScore
    trials: int
    program: Any = None
    """The tuned program itself (the export holds its state)."""
    model: Any = None
    """The registered MLflow model (:class:`~tribunal.optimizers.judge_model_log.LoggedJudge`), if tracked."""
    skipped: dict = field(default_factory=dict)
    """``{"train": Counter, "dev": Counter}``: items of an ``mlflow:`` slice left out, by reason."""
    objective: str = "item"
    scores: dict[str, ObjectiveScores] = field(default_factory=dict)
    """``{"untuned": ..., "tuned": ...}``: objective and item metric on dev, with bootstrap intervals."""
    selection: Any = None
    """How the objective chose among the optimizer's candidates (``objective_selection.Selection``)."""
    rejected: DevScore | None = None
    """The tuned program's dev score when it was too often unusable and the untuned one was kept."""
    rejected_reason: str | None = None
    stopped_by: str | None = None
    """The spending cap that stopped the optimizer (the export is then the best candidate scored before it)."""
    cap: Any = None
    """What the cap allowed and left (:class:`~tribunal.core.run_summary.CapStatus`), with a cap."""
    run_summary: Any = None
    """The run's :class:`~tribunal.core.run_summary.RunSummary`, as ``summary.json`` beside the export holds it."""


def _setting(value: Any) -> str:
    """A config value for the signature (``+`` joins lists: ``,`` already separates settings)."""
    return "+".join(map(str, value)) if isinstance(value, list) else str(value)


def _log_scores(run: Any, dev: DevScore, label: str, both: ObjectiveScores | None = None) -> None:
    run.log_metrics(dev.metrics(f"dev_{label}_"))
    if both is not None:
        run.log_metrics({**both.objective.metrics(f"dev_{label}_objective"), **both.item.metrics(f"dev_{label}_item")})
    run.log_text("\n".join(json.dumps(row) for row in dev.rows()) + "\n", f"dev/{label}.jsonl")


def objective_report(objective: str, scores: dict[str, ObjectiveScores], selection: Any,
                     devs: dict[str, DevScore] | None = None, rejected: str | None = None) -> dict[str, Any]:
    """The dev report's objective part (artifact ``dev/objective.json``, the export's metadata): each
    program's scores beside its scored / unscored / degraded counts (``devs``), how unscored items
    counted, and why a tuned program was ``rejected`` (too often unusable), if it was."""
    report: dict[str, Any] = {"objective": objective, "interval": f"bootstrap percentile {LEVEL:.0%} over segments, "
                                                                  f"{DRAWS} draws, seeded by --seed",
                              "unscored_counted": unscored_rule(objective),
                              "reliability_rule": f"a candidate with more than {MAX_UNSCORED_SHARE:.0%} of its dev "
                                                  f"items unscored and {SLACK:.0%} more than the untuned program "
                                                  "is not chosen"}
    for label, both in scores.items():
        report[label] = {"objective": both.objective.record(), "item": both.item.record(),
                         **((devs or {})[label].counts() if label in (devs or {}) else {})}
    if rejected is not None:
        report["rejected"] = rejected
    if selection is not None and selection.finalists:
        report["finalists"] = [{"source": f.source, "optimizer_score": _finite(f.own_score),
                                "objective": _finite(f.objective), "item": _finite(f.item), **(f.counts or {}),
                                "unreliable": f.unreliable, "chosen": f is selection.chosen}
                               for f in selection.finalists]
    return report


def _finite(value: float | None) -> float | None:
    """``value``, or None for NaN (the report is strict JSON)."""
    return None if value is None or value != value else value


def _stage(progress: Callable[[str, int, int | None], Any] | None, label: str,
           total: int | None) -> Callable[[], None]:
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


def load_job_inputs(request: OptimizeRequest, tracking: Any) -> tuple[Any, Any, Any, Any]:
    """The optimizer's spec, the train and dev data and the resolved program of ``request`` (user
    errors raised here, before any LM is built): what the run and its estimate both start from."""
    from tribunal.programs.mqm.segment_inputs import segment_inputs_of  # heavy: pulls in dspy

    spec = optimizer_spec(request.optimizer)
    if request.prompt_lm and not spec.takes_prompt_lm:
        raise UserError(f"--prompt-lm: optimizer {spec.name} uses no prompt/reflection LM")
    train = load_training_data(request.train, "--train", tracking_uri=tracking.resolved_uri)
    dev = load_training_data(request.dev, "--dev", tracking_uri=tracking.resolved_uri)
    if train.kind != dev.kind:
        raise UserError(f"--train is {train.kind} data but --dev is {dev.kind} data")
    check_disjoint(train, dev)
    resolved = resolve_program(request.program, expected_kind=train.kind, settings=request.settings)
    inputs = segment_inputs_of(resolved.config) if resolved.kind == "mt" else None
    if inputs is not None and inputs.used:  # the program reads references / context: the examples carry them
        train = load_training_data(request.train, "--train", inputs, tracking.resolved_uri)
        dev = load_training_data(request.dev, "--dev", inputs, tracking.resolved_uri)
    declared = JUDGES.find(resolved.name)
    if declared is not None and declared.together:  # one example per source: its candidates and their golds
        train, dev = (replace(data, examples=group_by_source(data.examples)) for data in (train, dev))
    return spec, train, dev, resolved


def run_optimize(request: OptimizeRequest, tracking: Any,
                 progress: Callable[[str, int, int | None], Any] | None = None, cap: Any = None) -> OptimizeResult:
    """Run the whole job; user errors are raised before any LM call or run is made.

    ``progress(label, done, total)`` follows the dev evaluations and the optimizer's trials.
    ``cap`` (a :class:`~tribunal.runner.spending_cap.SpendingCap`) bounds every call of the job, over
    all trials: once it refuses one, the optimizer's result is the best candidate it scored in full
    before that (:mod:`tribunal.optimizers.best_so_far`; the untuned program if none), scored on dev
    from the response cache, exported and logged as usual, and ``stopped_by`` says so.
    """
    import dspy  # heavy: dspy

    from tribunal.optimizers.best_so_far import BestSoFar  # heavy: pulls in dspy
    from tribunal.optimizers.labelled_demos import labeler_for  # heavy: pulls in dspy
    from tribunal.optimizers.lm_calls import LMCallCounter  # heavy: pulls in dspy
    from tribunal.optimizers.trials import TrialLogger, candidate_summary, log_posthoc_candidates  # heavy: pulls in dspy
    from tribunal.programs.mqm.segment_inputs import segment_inputs_of  # heavy: pulls in dspy

    started = time.perf_counter()
    spec, train, dev, resolved = load_job_inputs(request, tracking)
    metric = METRICS[train.kind]()

    objective = parse_objective(request.objective, train.kind, metric)
    lms = build_role_lms(request.lm, request.teacher_lm, request.prompt_lm, request.api_base, spec.takes_prompt_lm,
                         cache=request.cache, api_key_env=request.api_key_env,
                         limits={"max_tokens": request.max_tokens, "timeout": request.timeout,
                                 "rpm": request.rpm, "tpm": request.tpm})
    from tribunal.programs.answers.reask import set_reasks  # heavy: pulls in dspy

    if cap is not None:
        if not request.cache:
            raise UserError("--max-cost / --max-calls: optimize needs the response cache (the best program found "
                            "before the cap is scored on dev from it); drop --no-cache")
        cap.check_models(m for m in lms.models.values() if m)
        cap.attach([lms.task, lms.teacher, lms.prompt])
    set_reasks(lms.task, request.reasks)
    set_reasks(lms.teacher, request.reasks)
    budget = request.budget or spec.default_budget
    ctx = TuningContext(metric=metric, budget=budget, seed=request.seed, train=train.examples, dev=dev.examples,
                        task_lm=lms.task, teacher_lm=lms.teacher, prompt_lm=lms.prompt, threads=request.threads,
                        demos=request.demos, labeler=labeler_for(resolved.name), objective=objective)
    configured = plan(spec, ctx)
    out = request.out or Path("tribunal-out/optimized") / f"{resolved.name}-{spec.name}.json"
    writable_file(out, "--out")  # before the optimizer pays for anything

    config_text = ",".join(f"{k}={_setting(v)}" for k, v in sorted(resolved.config.items())) or None

    sig = str(OptimizeSignature(prog=resolved.label, set=config_text, opt=spec.name, budget=budget, lm=request.lm,
                                endpoint=endpoint_label(request.api_base), reasks=request.reasks,
                                teacher=request.teacher_lm, prompt=lms.models["prompt"], metric=metric.name,
                                objective=objective.name, train=train.label, dev=dev.label, seed=request.seed))
    params = {"program": resolved.label, "program_source": resolved.source, "program_config": config_text,
              "optimizer": spec.name, "dspy_optimizer": spec.dspy_name, "budget": budget,
              "budget_means": spec.budget_meaning,
              **{f"knob.{k}": v for k, v in configured.knobs.items()}, **lms.params(), "api_base": request.api_base,
              "metric": metric.name, "objective": objective.name, "train": train.spec, "train_hash": train.hash,
              "train_items": len(train.examples),
              "dev": dev.spec, "dev_hash": dev.hash, "dev_items": len(dev.examples), "seed": request.seed,
              "threads": request.threads}
    from tribunal.optimizers.optimize_run import log_training_inputs, log_tuned_prompts, optimize_run_name  # heavy: pulls in pandas, pyarrow

    name = optimize_run_name(resolved.label, spec.name, request.lm, train.spec)
    with tracked_run(tracking, name, params, tags={"tribunal.command": "optimize"}, signature=sig) as run:
        log_training_inputs(run, train=train, dev=dev)
        counter = LMCallCounter()
        try:
            with dspy.context(lm=lms.task, callbacks=[counter], usage_tracker=counter):
                untuned = evaluate_program(resolved.program, dev.examples, metric, request.threads,
                                           _stage(progress, "dev set, untuned", len(dev.examples)))
        except SpendingCapReached as err:
            raise SpendingCapReached(f"{err}: stopped in the untuned dev evaluation, before any trial; "
                                     "nothing exported") from None

        scores = {"untuned": score_both(objective, untuned.predictions, dev.examples, request.seed)}
        _log_scores(run, untuned, "untuned", scores["untuned"])
        if untuned.scored == 0:  # a wrong model name, endpoint or key: stop before the optimizer pays for it
            reason, _ = untuned.reasons.most_common(1)[0]
            raise UserError(f"every dev item failed with the untuned program (e.g. {reason}); check --lm / --api-base")

        trials = TrialLogger(run, on_trial=_stage(progress, f"{spec.name} trials", None))
        log = io.StringIO()
        best = BestSoFar(cap) if cap is not None else None
        counter.phase = "search"
        try:
            with dspy.context(lm=lms.task, callbacks=[trials, counter, *([best] if best else [])],
                              usage_tracker=counter), contextlib.redirect_stdout(log):
                compiled = run_plan(configured, resolved.program, train.examples, request.seed)
        except Exception:  # noqa: BLE001 - only a cap's stop is kept (its best candidate); anything else propagates
            if cap is None or cap.stopped_by is None:
                raise
            compiled = None
        finally:
            counter.phase = "dev"
        stopped = cap.stopped_by if cap is not None else None
        if stopped:  # the optimizer's own choice saw refused calls as failures: the best full trial instead
            compiled = best.program if best.program is not None else resolved.program
        run.log_text(log.getvalue() or "(no output)\n", "optimizer.log")
        log_posthoc_candidates(trials, compiled)

        def rescore(program: Any) -> DevScore:
            with dspy.context(lm=lms.task, callbacks=[counter], usage_tracker=counter):
                return evaluate_program(program, dev.examples, metric, request.threads)

        def log_finalist(finalist: Any) -> None:
            trials.log(candidate_summary(finalist.program), finalist.objective, len(dev.examples),
                       source=f"objective:{finalist.source}")

        selection = None
        if not stopped:  # re-scoring finalists costs calls a stopped run may not make
            selection = select_by_objective(compiled, objective, rescore, dev.examples, on_scored=log_finalist,
                                            untuned=untuned)
            compiled = selection.program

        tuned = rescored_on_dev(compiled, dev.examples, metric, request.threads, lms.task, counter,
                                _stage(progress, "dev set, tuned", len(dev.examples)))
        candidate, rejected, rejected_reason = compiled, None, unreliable(tuned, untuned)
        if rejected_reason is not None:  # too often unusable: not exported, the untuned program stands
            rejected, compiled, tuned = tuned, resolved.program, untuned
            _log_scores(run, rejected, "rejected", score_both(objective, rejected.predictions, dev.examples,
                                                              request.seed))
            run.set_tags({"tribunal.tuned_rejected": rejected_reason})
        scores["tuned"] = score_both(objective, tuned.predictions, dev.examples, request.seed)
        _log_scores(run, tuned, "tuned", scores["tuned"])
        report = objective_report(objective.name, scores, selection, {"untuned": untuned, "tuned": tuned},
                                  rejected_reason)
        run.log_text(json.dumps(report, indent=2) + "\n", "dev/objective.json")
        run.set_tags({"tribunal.objective": objective.name})
        if not trials.trials:  # single-candidate optimizers: the compiled program is the trial
            trials.log(candidate_summary(candidate), (rejected or tuned).score, len(dev.examples), source="compiled")
        if cap is not None:
            run.log_metrics({"cap.spent_usd": cap.spent, "cap.calls_sent": float(cap.sent)})
            if stopped:
                run.set_tags({"tribunal.stopped_by": stopped})
        run.log_metrics({"dev_improvement": tuned.score - untuned.score,
                         "dev_objective_improvement": scores["tuned"].objective.value
                         - scores["untuned"].objective.value, "trials": float(len(trials.trials)),
                         "optimizer_metric_calls": float(metric.calls),
                         "optimizer_unscored": float(metric.unscored_count), **counter.metrics(),
                         **optimize_usage_metrics(counter.summary(), lms.models)})

        status = cap_status(cap, 1 if stopped else 0)  # left: the optimizer's own search, cut short
        metadata = {"optimizer": spec.name, "budget": budget, "knobs": configured.knobs, "metric": metric.name,
                    "objective": objective.name, "dev_objective": scores["tuned"].objective.value,
                    "dev_objective_untuned": scores["untuned"].objective.value, "dev_objective_report": report,
                    "dev_score": tuned.score, "dev_score_untuned": untuned.score, "dev_unscored": tuned.unscored,
                    "dev_degraded": tuned.degraded, "dev_unscored_untuned": untuned.unscored,
                    "dev_data": dev.label, "train_data": train.label, "train_data_hash": train.hash,
                    "seed": request.seed, "run_id": run.run_id, "signature": sig, "stopped_by": stopped,
                    "best_trial_score": best.score if best is not None else None,
                    "cap": status.model_dump() if status is not None else None,
                    "lms": {k: v for k, v in (lms.models or {}).items() if v}}
        document = export_document(compiled, resolved.name, resolved.config, metadata)
        write_export(document, out)
        with tempfile.TemporaryDirectory() as folder:
            artifact = write_export(document, Path(folder) / ARTIFACT_NAME)
            run.log_artifact(artifact, ARTIFACT_DIR)
            # The tuned judge as an MLflow model (from code, the export as its artifact), a version of tribunal-<program>.
            model = log_judge_model(run, artifact, document, train.kind,
                                    {"format": document["format"], "sha256": document["sha256"], "dev_score": tuned.score,
                                     "objective": objective.name, "dev_objective": scores["tuned"].objective.value})
        log_tuned_prompts(run, compiled, resolved.name, document)
    result = OptimizeResult(out, run.run_id, sig, untuned, tuned, len(trials.trials), compiled, model=model,
                            skipped={"train": train.skipped, "dev": dev.skipped}, objective=objective.name,
                            scores=scores, selection=selection, rejected=rejected, rejected_reason=rejected_reason,
                            stopped_by=stopped, cap=status)
    result.run_summary = optimize_run_summary(result, counter.summary(), lms.models, time.perf_counter() - started)
    write_optimize_summary(result.run_summary)
    return result


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

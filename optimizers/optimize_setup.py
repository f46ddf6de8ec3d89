"""What a ``tribunal optimize`` job is set up with before its MLflow run: the optimizer's spec, the
train and dev data, the resolved program, the metric and objective, the role LMs (under the cap, if
any), the optimizer's plan and the export path; and the run's signature and params built from them.
User errors are raised here, before any LM call or run is made."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tribunal.core.judges import JUDGES
from tribunal.errors import UserError
from tribunal.data.output_paths import writable_file
from tribunal.eval.tracking.run_signatures import OptimizeSignature
from tribunal.optimizers.group_examples import group_by_source
from tribunal.optimizers.lm_roles import build_role_lms
from tribunal.optimizers.objectives import parse_objective
from tribunal.optimizers.optimize_request import METRICS, OptimizeRequest
from tribunal.optimizers.program_source import resolve_program
from tribunal.optimizers.registry import TuningContext, optimizer_spec, plan
from tribunal.optimizers.training_data import check_disjoint, load_training_data
from tribunal.programs.lm import endpoint_label


@dataclass
class OptimizeSetup:
    """Everything a job runs with, built by :func:`prepare_job`."""

    request: OptimizeRequest
    spec: Any
    train: Any
    dev: Any
    resolved: Any
    metric: Any
    objective: Any
    lms: Any
    budget: int
    configured: Any
    out: Path
    config_text: str | None


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


def prepare_job(request: OptimizeRequest, tracking: Any, cap: Any = None) -> OptimizeSetup:
    """Load the inputs, build the role LMs (re-asks set, ``cap`` attached) and the optimizer's plan, and
    check the export path is writable: all before the optimizer pays for anything."""
    from tribunal.optimizers.labelled_demos import labeler_for  # heavy: pulls in dspy
    from tribunal.programs.answers.reask import set_reasks  # heavy: pulls in dspy

    spec, train, dev, resolved = load_job_inputs(request, tracking)
    metric = METRICS[train.kind]()
    objective = parse_objective(request.objective, train.kind, metric)
    lms = build_role_lms(request.lm, request.teacher_lm, request.prompt_lm, request.api_base, spec.takes_prompt_lm,
                         cache=request.cache, api_key_env=request.api_key_env,
                         limits={"max_tokens": request.max_tokens, "timeout": request.timeout,
                                 "rpm": request.rpm, "tpm": request.tpm})
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
    return OptimizeSetup(request, spec, train, dev, resolved, metric, objective, lms, budget, configured, out,
                         config_text)


def _setting(value: Any) -> str:
    """A config value for the signature (``+`` joins lists: ``,`` already separates settings)."""
    return "+".join(map(str, value)) if isinstance(value, list) else str(value)


def run_signature(setup: OptimizeSetup) -> str:
    """The run's reproducibility signature."""
    request, train, dev = setup.request, setup.train, setup.dev
    return str(OptimizeSignature(prog=setup.resolved.label, set=setup.config_text, opt=setup.spec.name,
                                 budget=setup.budget, lm=request.lm, endpoint=endpoint_label(request.api_base),
                                 reasks=request.reasks, teacher=request.teacher_lm, prompt=setup.lms.models["prompt"],
                                 metric=setup.metric.name, objective=setup.objective.name, train=train.label,
                                 dev=dev.label, seed=request.seed))


def run_params(setup: OptimizeSetup) -> dict[str, Any]:
    """The run's MLflow params: program and config, optimizer and its knobs, LMs, data slices, seed."""
    request, spec, train, dev = setup.request, setup.spec, setup.train, setup.dev
    return {"program": setup.resolved.label, "program_source": setup.resolved.source,
            "program_config": setup.config_text, "optimizer": spec.name, "dspy_optimizer": spec.dspy_name,
            "budget": setup.budget, "budget_means": spec.budget_meaning,
            **{f"knob.{k}": v for k, v in setup.configured.knobs.items()}, **setup.lms.params(),
            "api_base": request.api_base, "metric": setup.metric.name, "objective": setup.objective.name,
            "train": train.spec, "train_hash": train.hash, "train_items": len(train.examples),
            "dev": dev.spec, "dev_hash": dev.hash, "dev_items": len(dev.examples), "seed": request.seed,
            "threads": request.threads}

"""``tribunal optimize``: tune a judge's demos and instructions against human labels."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from tribunal.cli.common import Experiment, NoTrack, TrackingUri, tracking_settings
from tribunal.cli.console import console as make_console
from tribunal.cli.estimate_options import EstimateOption, JsonOption, show_estimate
from tribunal.cli.optimize_report import print_optimize_summary
from tribunal.cli.help_policy import examples
from tribunal.cli.lm_options import (API_BASE_HELP, API_KEY_ENV_HELP, CACHE_HELP, MaxTokensOption, ReasksOption,
                                     RpmOption, TimeoutOption, TpmOption, check_rates)
from tribunal.core.judges import JUDGES
from tribunal.optimizers.registry import OPTIMIZERS
from tribunal.errors import EXIT_CAPPED, UserError
from tribunal.cli.cap_options import MaxCallsOption, MaxCostOption, make_cap

OPTIMIZER_HELP = "The DSPy optimizer: " + ", ".join(
    f"{name} ({spec.dspy_name})" for name, spec in OPTIMIZERS.items()) + "."
BUDGET_HELP = "How much the optimizer may do; what N counts depends on --optimizer: " + "; ".join(
    f"{name}: {spec.budget_meaning} (default {spec.default_budget})" for name, spec in OPTIMIZERS.items()) + "."
SET_HELP = ("A program setting, repeatable; checked by the program's own config and kept in the export "
            "(e.g. rubric=component for equiv-llm; strategy=deliberation, rounds=2, ablate=stage2,stage3 for mmad).")
OBJECTIVE_HELP = ("What the optimizer's candidates are chosen by, on --dev: item (the per-item metric, default), "
                  "seg-acc-eq, kendall, pearson (MT), balanced-accuracy, f1-different (equivalence), or a weighted "
                  "mix such as seg-acc-eq=0.7,item=0.3 (docs/guides/objectives.md).")
TEACHERS = ", ".join(name for name, spec in OPTIMIZERS.items() if spec.takes_teacher)
PROMPTERS = ", ".join(name for name, spec in OPTIMIZERS.items() if spec.takes_prompt_lm)
EPILOG = examples(
    "tribunal optimize --program equiv-llm --optimizer labeled --train suite:0-80 --dev suite:80-120 "
    "--lm openai/gpt-4o-mini",
    "tribunal optimize --program gemba-mqm --optimizer mipro --budget 12 --train mqm-ted:en-de:0-200 "
    "--dev mqm-ted:en-de:200-260 --lm openai/gpt-4o-mini --prompt-lm openai/gpt-4o",
    "tribunal optimize --program mmad --set strategy=deliberation --optimizer bootstrap "
    "--train mqm-ted:zh-en:0-100 --dev mqm-ted:zh-en:100-140 --lm openai/gpt-4o-mini --teacher-lm openai/gpt-4o",
    "tribunal optimize --program gemba-mqm --optimizer labeled --train mlflow:tribunal:0-40 "
    "--dev mlflow:tribunal:40- --lm openai/gpt-4o-mini   # traces labelled in the MLflow UI")



def register(app: typer.Typer) -> None:
    app.command("optimize", epilog=EPILOG)(optimize)


def optimize(
    ctx: typer.Context,
    program: str = typer.Option(..., "--program", metavar="NAME|FILE",
                                help=f"A registered program ({', '.join(JUDGES.names())}) "
                                     "or an exported .json file to tune further."),
    optimizer: str = typer.Option(..., "--optimizer", metavar="NAME", help=OPTIMIZER_HELP),
    train: str = typer.Option(
        ..., "--train", help="Training data: mqm-ted:LP[:A-B], suite[:FILE][:A-B], pairs:FILE[:A-B] or "
                             "mlflow:EXPERIMENT[:A-B][?FILTER] (traces a person labelled, in the --tracking-uri store; "
                             "FILTER: MLflow's trace search syntax) (never WMT23)."),
    dev: str = typer.Option(..., "--dev", help="Dev data to select and report on (same forms as --train, disjoint)."),
    lm: str = typer.Option(..., "--lm", help="Task LM: the LiteLLM model the tuned judge runs on."),
    program_settings: List[str] = typer.Option([], "--set", help=SET_HELP),
    api_base: Optional[str] = typer.Option(None, "--api-base", help=API_BASE_HELP + " Used by every role."),
    api_key_env: Optional[str] = typer.Option(None, "--api-key-env", help=API_KEY_ENV_HELP + " Used by every role."),
    teacher_lm: Optional[str] = typer.Option(
        None, "--teacher-lm", help=f"Teacher LM that bootstraps demos (optimizers {TEACHERS}; default: --lm)."),
    prompt_lm: Optional[str] = typer.Option(
        None, "--prompt-lm", help=f"LM proposing instructions or reflecting (optimizers {PROMPTERS}; default: --lm)."),
    budget: Optional[int] = typer.Option(None, "--budget", min=1, help=BUDGET_HELP),
    objective: str = typer.Option("item", "--objective", metavar="NAME|NAME=W,...", help=OBJECTIVE_HELP),
    seed: int = typer.Option(0, "--seed", help="Random seed (training order, candidate sampling)."),
    threads: int = typer.Option(4, "--threads", min=1, max=256, help="Concurrent LM calls."),
    cache: bool = typer.Option(True, "--cache/--no-cache", help=CACHE_HELP),
    reasks: Optional[int] = ReasksOption,
    max_tokens: Optional[int] = MaxTokensOption,
    timeout: Optional[float] = TimeoutOption,
    rpm: Optional[float] = RpmOption,
    tpm: Optional[float] = TpmOption,
    max_cost: Optional[float] = MaxCostOption,
    max_calls: Optional[int] = MaxCallsOption,
    out: Optional[Path] = typer.Option(
        None, "--out", metavar="FILE", help="Exported program (default: tribunal-out/optimized/PROGRAM-OPTIMIZER.json)."),
    tracking_uri: Optional[str] = TrackingUri,
    no_track: bool = NoTrack,
    experiment: str = Experiment,
    estimate: bool = EstimateOption,
    as_json: bool = JsonOption,
) -> None:
    """Tune a judge's demos and instructions with a DSPy optimizer.

    Scores the untuned program on --dev, runs the optimizer on --train (every trial a nested MLflow
    run), scores the tuned program on --dev and exports it as sealed JSON (load it back with
    --program FILE in optimize, mt evaluate and equiv audit); tracked, it is also registered as an
    MLflow model, tribunal-PROGRAM (mlflow.pyfunc.load_model, mlflow models serve). The run's summary is
    written as summary.json beside the export. --estimate sends nothing and prints what the job would cost.
    """
    from pydantic import ValidationError  # heavy: pydantic

    from tribunal.cli.progress import progress_bars  # startup: kept out of `tribunal --help`
    from tribunal.optimizers.optimize_job import OptimizeRequest, run_optimize  # heavy: pulls in scipy, numpy
    from tribunal.optimizers.program_settings import parse_assignments  # heavy: pulls in pydantic

    check_rates(rpm, tpm)
    try:
        request = OptimizeRequest(program=program, optimizer=optimizer, settings=parse_assignments(program_settings),
                                  train=train, dev=dev, lm=lm, api_base=api_base, api_key_env=api_key_env,
                                  teacher_lm=teacher_lm, prompt_lm=prompt_lm, budget=budget, seed=seed,
                                  threads=threads, cache=cache, max_tokens=max_tokens, timeout=timeout, out=out,
                                  objective=objective, rpm=rpm, tpm=tpm,
                                  **({"reasks": reasks} if reasks is not None else {}))
    except ValidationError as err:
        first = err.errors()[0]
        raise UserError(f"--{'.'.join(map(str, first['loc'])).replace('_', '-')}: {first['msg']}") from None
    settings = tracking_settings(tracking_uri, no_track, experiment)
    if estimate:
        return _estimate(request, settings, as_json)
    with progress_bars() as report:
        result = run_optimize(request, settings, progress=report, cap=make_cap(max_cost, max_calls, ctx=ctx))
    print_optimize_summary(make_console(), result.run_summary)
    if result.run_summary.stopped_by:
        raise typer.Exit(EXIT_CAPPED)


def _estimate(request, tracking, as_json: bool) -> None:
    """``--estimate``: the job rehearsed and its cost shown; nothing is sent, no MLflow run is made."""
    from tribunal.optimizers.optimize_estimate import estimate_optimize  # heavy: pulls in dspy, numpy

    show_estimate(estimate_optimize(request, tracking), as_json)

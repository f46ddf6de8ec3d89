"""``tribunal optimize``: tune a judge's demos and instructions against human labels."""

from __future__ import annotations

from pathlib import Path
from typing import Any, List, Optional

import typer

from tribunal.cli.common import Experiment, NoTrack, TrackingUri, tracking_settings
from tribunal.cli.console import console as make_console
from tribunal.cli.estimate_options import EstimateOption, JsonOption, show_estimate
from tribunal.cli.optimize_report import print_optimize_summary
from tribunal.cli.help_policy import examples
from tribunal.cli.lm_options import MaxTokensOption, ReasksOption, RpmOption, TimeoutOption, TpmOption, check_rates
from tribunal.cli.optimize_options import (BudgetOption, DevOption, ExportOutOption, ObjectiveOption,
                                           OptimizeCacheOption, OptimizerOption, ProgramOption, PromptLmOption,
                                           RolesApiBaseOption, RolesApiKeyEnvOption, SeedOption, SetOption,
                                           TaskLmOption, TeacherLmOption, ThreadsOption, TrainOption)
from tribunal.errors import EXIT_CAPPED, UserError
from tribunal.cli.cap_options import MaxCallsOption, MaxCostOption, make_cap

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
    program: str = ProgramOption,
    optimizer: str = OptimizerOption,
    train: str = TrainOption,
    dev: str = DevOption,
    lm: str = TaskLmOption,
    program_settings: List[str] = SetOption,
    api_base: Optional[str] = RolesApiBaseOption,
    api_key_env: Optional[str] = RolesApiKeyEnvOption,
    teacher_lm: Optional[str] = TeacherLmOption,
    prompt_lm: Optional[str] = PromptLmOption,
    budget: Optional[int] = BudgetOption,
    objective: str = ObjectiveOption,
    seed: int = SeedOption,
    threads: int = ThreadsOption,
    cache: bool = OptimizeCacheOption,
    reasks: Optional[int] = ReasksOption,
    max_tokens: Optional[int] = MaxTokensOption,
    timeout: Optional[float] = TimeoutOption,
    rpm: Optional[float] = RpmOption,
    tpm: Optional[float] = TpmOption,
    max_cost: Optional[float] = MaxCostOption,
    max_calls: Optional[int] = MaxCallsOption,
    out: Optional[Path] = ExportOutOption,
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
    check_rates(rpm, tpm)
    request = checked_request(
        dict(program=program, optimizer=optimizer, train=train, dev=dev, lm=lm, api_base=api_base,
             api_key_env=api_key_env, teacher_lm=teacher_lm, prompt_lm=prompt_lm, budget=budget, seed=seed,
             threads=threads, cache=cache, max_tokens=max_tokens, timeout=timeout, out=out, objective=objective,
             rpm=rpm, tpm=tpm, **({"reasks": reasks} if reasks is not None else {})), program_settings)
    settings = tracking_settings(tracking_uri, no_track, experiment)
    if estimate:
        return _estimate(request, settings, as_json)
    run_optimize_command(ctx, request, settings, max_cost, max_calls)


def checked_request(fields: dict[str, Any], program_settings: List[str]) -> Any:
    """The :class:`~tribunal.optimizers.optimize_request.OptimizeRequest` of the options (``--set`` parsed);
    a bad value is a one-line error naming its option."""
    from pydantic import ValidationError  # heavy: pydantic

    from tribunal.optimizers.optimize_request import OptimizeRequest  # heavy: pulls in scipy, numpy
    from tribunal.optimizers.program_settings import parse_assignments  # heavy: pulls in pydantic

    try:
        return OptimizeRequest(settings=parse_assignments(program_settings), **fields)
    except ValidationError as err:
        first = err.errors()[0]
        raise UserError(f"--{'.'.join(map(str, first['loc'])).replace('_', '-')}: {first['msg']}") from None


def run_optimize_command(ctx: typer.Context, request: Any, settings: Any, max_cost: Optional[float],
                         max_calls: Optional[int]) -> None:
    """Run the job under progress bars and the cap of ``--max-cost`` / ``--max-calls``, print its summary;
    exit status 5 when the cap stopped it."""
    from tribunal.cli.progress import progress_bars  # startup: kept out of `tribunal --help`
    from tribunal.optimizers.optimize_job import run_optimize  # heavy: pulls in scipy, numpy

    with progress_bars() as report:
        result = run_optimize(request, settings, progress=report, cap=make_cap(max_cost, max_calls, ctx=ctx))
    print_optimize_summary(make_console(), result.run_summary)
    if result.run_summary.stopped_by:
        raise typer.Exit(EXIT_CAPPED)


def _estimate(request, tracking, as_json: bool) -> None:
    """``--estimate``: the job rehearsed and its cost shown; nothing is sent, no MLflow run is made."""
    from tribunal.optimizers.optimize_estimate import estimate_optimize  # heavy: pulls in dspy, numpy

    show_estimate(estimate_optimize(request, tracking), as_json)

"""``tribunal optimize``: tune a judge's demos and instructions against human labels."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from tribunal.cli.common import NoTrack, TrackingUri, tracking_settings
from tribunal.cli.console import console as make_console

OPTIMIZER_HELP = ("labeled | bootstrap | random-search | mipro | simba | gepa "
                  "(--budget: demos | demos | candidate programs | trials | steps | metric calls)")

SET_HELP = ("A program setting, repeatable; checked by the program's own config and kept in the export "
            "(e.g. rubric=component for equiv-llm; strategy=deliberation, rounds=2, ablate=stage2,stage3 for mmad).")


def register(app: typer.Typer) -> None:
    app.command("optimize")(optimize)


def optimize(
    program: str = typer.Option(..., "--program", help="A registered program name, or an exported .json file."),
    optimizer: str = typer.Option(..., "--optimizer", help=OPTIMIZER_HELP),
    program_settings: List[str] = typer.Option(
        [], "--set", metavar="KEY=VALUE", help=SET_HELP),
    train: str = typer.Option(
        ..., "--train", help="Training data: mqm-ted:LP[:A-B], suite[:FILE][:A-B] or pairs:FILE[:A-B] (never WMT23)."),
    dev: str = typer.Option(..., "--dev", help="Dev data to select and report on (same forms as --train)."),
    lm: str = typer.Option(..., "--lm", help="Task LM (any LiteLLM model name; key from the environment)."),
    api_base: Optional[str] = typer.Option(None, "--api-base", help="Endpoint URL for all LMs (vLLM, Ollama, ...)."),
    teacher_lm: Optional[str] = typer.Option(None, "--teacher-lm", help="Teacher LM for bootstrapping demos."),
    prompt_lm: Optional[str] = typer.Option(
        None, "--prompt-lm", help="Prompt/reflection LM for mipro, simba, gepa (default: --lm)."),
    budget: Optional[int] = typer.Option(None, "--budget", min=1, help="Optimizer budget (see --optimizer)."),
    seed: int = typer.Option(0, "--seed", help="Random seed."),
    threads: int = typer.Option(4, "--threads", min=1, max=256, help="Concurrent LM calls."),
    cache: bool = typer.Option(True, "--cache/--no-cache",
                               help="Reuse DSPy's response cache (keyed by model, endpoint and request)."),
    out: Optional[Path] = typer.Option(
        None, "--out", help="Exported program (default: tribunal-out/optimized/PROGRAM-OPTIMIZER.json)."),
    tracking_uri: Optional[str] = TrackingUri,
    no_track: bool = NoTrack,
) -> None:
    """Tune a judge with a DSPy optimizer; every trial is a nested MLflow run; the result is exported."""
    from pydantic import ValidationError

    from tribunal.errors import UserError
    from tribunal.optimizers.optimize_job import OptimizeRequest, run_optimize
    from tribunal.optimizers.program_settings import parse_assignments

    try:
        request = OptimizeRequest(program=program, optimizer=optimizer, settings=parse_assignments(program_settings),
                                  train=train, dev=dev, lm=lm, api_base=api_base,
                                  teacher_lm=teacher_lm, prompt_lm=prompt_lm, budget=budget, seed=seed,
                                  threads=threads, cache=cache, out=out)
    except ValidationError as err:
        first = err.errors()[0]
        raise UserError(f"--{'.'.join(map(str, first['loc'])).replace('_', '-')}: {first['msg']}") from None
    settings = tracking_settings(tracking_uri, no_track)
    result = run_optimize(request, settings)
    console = make_console()
    console.print(f"dev score: untuned {result.untuned.score:.3f} -> tuned {result.tuned.score:.3f} "
                  f"({result.tuned.unscored} unscored of {result.tuned.n}); {result.trials} trial(s)")
    console.print(f"program: {result.out}")
    console.print(f"signature: {result.signature}", soft_wrap=True)
    if result.run_id:
        console.print(f"run: {result.run_id}  (export again with `tribunal export {result.run_id} --out FILE`)")

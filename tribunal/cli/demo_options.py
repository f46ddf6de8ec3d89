"""The options of ``tribunal demo`` (:class:`DemoArgs` holds them as the command received them)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import typer

from tribunal.cli.lm_args import LMArgs, TrackingArgs
from tribunal.cli.lm_options import API_BASE_HELP, API_KEY_ENV_HELP, CACHE_HELP

DataOption: Optional[Path] = typer.Option(None, "--data",
                                          help="A wmt23-style folder (default: $TRIBUNAL_DATA/wmt23).")
DemoOutOption: Path = typer.Option(Path("tribunal-out/demo"), "--out", metavar="DIR", help="Where result files go.")
DemoLmOption: Optional[str] = typer.Option(
    None, "--lm", envvar="TRIBUNAL_LM", help="LiteLLM model for the M-MAD and equivalence-judge steps (default: the "
    "local model when the local extra is installed; without any the steps are skipped).")
DemoApiBaseOption: Optional[str] = typer.Option(None, "--api-base", envvar="TRIBUNAL_API_BASE", help=API_BASE_HELP)
DemoApiKeyEnvOption: Optional[str] = typer.Option(None, "--api-key-env", envvar="TRIBUNAL_API_KEY_ENV",
                                                  help=API_KEY_ENV_HELP)
DemoCacheOption: bool = typer.Option(True, "--cache/--no-cache", help=CACHE_HELP)
NoLmOption: bool = typer.Option(False, "--no-lm", help="Skip the LM steps (and the local model): the offline "
                                                       "meta-evaluation and the rules' audit only.")
DemoExperimentOption: str = typer.Option("tribunal-demo", "--experiment", help="MLflow experiment name.")


@dataclass
class DemoArgs(LMArgs, TrackingArgs):
    """The options of ``tribunal demo``, as the command received them (see its ``--help``)."""

    data: Optional[Path]
    out: Path
    server_slots: Optional[str]
    no_lm: bool
    max_cost: Optional[float]
    max_calls: Optional[int]

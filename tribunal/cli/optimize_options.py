"""The options of ``tribunal optimize`` that no other command shares, and the help texts naming the
optimizers' own choices (from the optimizer registry)."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from tribunal.cli.lm_options import API_BASE_HELP, API_KEY_ENV_HELP, CACHE_HELP
from tribunal.core.judges import JUDGES
from tribunal.optimizers.registry import OPTIMIZERS

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

ProgramOption: str = typer.Option(..., "--program", metavar="NAME|FILE",
                                  help=f"A registered program ({', '.join(JUDGES.names())}) "
                                       "or an exported .json file to tune further.")
OptimizerOption: str = typer.Option(..., "--optimizer", metavar="NAME", help=OPTIMIZER_HELP)
TrainOption: str = typer.Option(
    ..., "--train", help="Training data: mqm-ted:LP[:A-B], suite[:FILE][:A-B], pairs:FILE[:A-B] or "
                         "mlflow:EXPERIMENT[:A-B][?FILTER] (traces a person labelled, in the --tracking-uri store; "
                         "FILTER: MLflow's trace search syntax) (never WMT23).")
DevOption: str = typer.Option(..., "--dev", help="Dev data to select and report on (same forms as --train, disjoint).")
TaskLmOption: str = typer.Option(..., "--lm", help="Task LM: the LiteLLM model the tuned judge runs on.")
SetOption: List[str] = typer.Option([], "--set", help=SET_HELP)
RolesApiBaseOption: Optional[str] = typer.Option(None, "--api-base", help=API_BASE_HELP + " Used by every role.")
RolesApiKeyEnvOption: Optional[str] = typer.Option(None, "--api-key-env",
                                                   help=API_KEY_ENV_HELP + " Used by every role.")
TeacherLmOption: Optional[str] = typer.Option(
    None, "--teacher-lm", help=f"Teacher LM that bootstraps demos (optimizers {TEACHERS}; default: --lm).")
PromptLmOption: Optional[str] = typer.Option(
    None, "--prompt-lm", help=f"LM proposing instructions or reflecting (optimizers {PROMPTERS}; default: --lm).")
BudgetOption: Optional[int] = typer.Option(None, "--budget", min=1, help=BUDGET_HELP)
ObjectiveOption: str = typer.Option("item", "--objective", metavar="NAME|NAME=W,...", help=OBJECTIVE_HELP)
SeedOption: int = typer.Option(0, "--seed", help="Random seed (training order, candidate sampling).")
ThreadsOption: int = typer.Option(4, "--threads", min=1, max=256, help="Concurrent LM calls.")
OptimizeCacheOption: bool = typer.Option(True, "--cache/--no-cache", help=CACHE_HELP)
ExportOutOption: Optional[Path] = typer.Option(
    None, "--out", metavar="FILE", help="Exported program (default: tribunal-out/optimized/PROGRAM-OPTIMIZER.json).")

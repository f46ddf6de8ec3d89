"""The ``tribunal`` command line. Sub-commands import their heavy libraries lazily."""

from __future__ import annotations

import importlib
import sys

import typer

from tribunal.cli.errors import TribunalError, report_error

# (name, module, help): each module defines a Typer ``app``.
SUBCOMMANDS = [
    ("mt", "tribunal.cli.mt", "Machine-translation judges and WMT23 meta-evaluation."),
    ("data", "tribunal.cli.data", "Fetch and check data sets."),
    ("equiv", "tribunal.cli.equiv", "Equivalence judges and their perturbation audit."),
    ("hyp", "tribunal.cli.hyp", "Hypothesis proposer/critic workflow and run divergence."),
    ("runs", "tribunal.cli.runs", "List and compare tracked runs."),
]

app = typer.Typer(
    name="tribunal",
    help="LLM judges as DSPy programs: M-MAD MT judges, equivalence judges, exact meta-evaluation, MLflow tracking.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

for _name, _module, _help in SUBCOMMANDS:
    app.add_typer(importlib.import_module(_module).app, name=_name, help=_help)

for _module in ("tribunal.cli.demo", "tribunal.cli.optimize", "tribunal.cli.export"):
    importlib.import_module(_module).register(app)


def main() -> None:
    """Console entry point: user errors become one line on stderr and exit status 2."""
    try:
        app()
    except TribunalError as err:
        report_error(err)
        sys.exit(2)

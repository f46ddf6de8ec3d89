"""The ``tribunal`` command line. Sub-commands import their heavy libraries lazily."""

from __future__ import annotations

import importlib
import sys
from typing import Sequence

import typer

from tribunal.cli.errors import TribunalError, UserError, report, report_error  # noqa: F401  (re-exported)
from tribunal.cli.interrupts import second_interrupt_stops_at_once
from tribunal.errors import EXIT_INTERRUPTED

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


def main(argv: Sequence[str] | None = None) -> None:
    """Console entry point: every expected failure ends as one line on stderr and a documented status.

    The statuses are in :mod:`tribunal.errors` and the README ("Exit status"); a bug keeps its
    traceback.
    """
    try:
        with second_interrupt_stops_at_once():
            status = app(args=list(argv) if argv is not None else None, prog_name="tribunal", standalone_mode=False)
        if status == EXIT_INTERRUPTED:  # Typer's answer to a bare KeyboardInterrupt: silent 130
            report("interrupted", interrupted=True)
    except (Exception, KeyboardInterrupt) as err:
        if type(err).__name__ == "NoArgsIsHelpError":  # `tribunal` or `tribunal mt` alone: Typer printed the help
            status = err.exit_code  # type: ignore[attr-defined]
        else:
            status = report_error(err)  # re-raises a bug, traceback and all
    sys.exit(status if isinstance(status, int) else 0)

"""The ``tribunal`` command line. Sub-commands import their heavy libraries lazily."""

from __future__ import annotations

import gc
import importlib
import sys
from typing import Sequence

import typer

from tribunal.cli.errors import TribunalError, UserError, report, report_error  # noqa: F401  (re-exported)
from tribunal.cli.help_policy import apply_policy
from tribunal.cli.interrupts import second_interrupt_stops_at_once
from tribunal.cli.local_model import local_model_scope
from tribunal.errors import EXIT_INTERRUPTED
from tribunal.quiet import prepare_environment, set_verbose

# (name, module, help): each module defines a Typer ``app``.
SUBCOMMANDS = [
    ("mt", "tribunal.cli.mt", "Machine-translation judges and WMT23 meta-evaluation."),
    ("data", "tribunal.cli.data", "Fetch and check data sets."),
    ("equiv", "tribunal.cli.equiv", "Equivalence judges and their perturbation audit."),
    ("hyp", "tribunal.cli.hyp", "Hypothesis proposer/critic workflow and run divergence."),
    ("runs", "tribunal.cli.runs", "List, compare and view tracked runs."),
    ("local", "tribunal.cli.local", "The local model: llama.cpp built to run on this CPU."),
]

HELP = ("tribunal: build, audit and tune LLM judges written as DSPy programs (M-MAD and other MT judges, "
        "equivalence judges), meta-evaluate them exactly as the WMT shared tasks do, and track every run in "
        "MLflow. For researchers and evaluation engineers who bring their own LM.")

VERBOSE_FLAG = "--verbose"

app = typer.Typer(
    name="tribunal",
    help=HELP,
    epilog="\b\nExamples:\n  tribunal demo\n  tribunal mt meta-eval --lp zh-en\n"
           "  tribunal mt evaluate --lp zh-en --lm openai/gpt-4o-mini --limit 20\n\n"
           "Global option: --verbose (anywhere on the line) shows what the libraries log and print.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=None,  # click's plain help: wraps at any width, never cuts a default
)


@app.callback()
def _root(
    verbose: bool = typer.Option(
        False, VERBOSE_FLAG, help="Also show what DSPy, MLflow, LiteLLM and the other libraries log, warn and "
        "print (on stderr; stdout keeps tribunal's own lines). Accepted anywhere on the command line."),
) -> None:
    prepare_environment()
    set_verbose(verbose)


for _name, _module, _help in SUBCOMMANDS:
    app.add_typer(importlib.import_module(_module).app, name=_name, help=_help)

for _module in ("tribunal.cli.demo", "tribunal.cli.optimize", "tribunal.cli.export"):
    importlib.import_module(_module).register(app)

apply_policy(app)


def _global_flags_first(argv: list[str]) -> list[str]:
    """``--verbose`` may stand anywhere (before a ``--``); Typer reads it on the root command."""
    end = argv.index("--") if "--" in argv else len(argv)
    if VERBOSE_FLAG not in argv[:end]:
        return argv
    rest = [a for a in argv[:end] if a != VERBOSE_FLAG] + argv[end:]
    return [VERBOSE_FLAG, *rest]


def main(argv: Sequence[str] | None = None) -> None:
    """Console entry point: every expected failure ends as one line on stderr and a documented status.

    The statuses are in :mod:`tribunal.errors` and the README ("Exit status"); a bug keeps its
    traceback. The environment every command needs (:func:`tribunal.quiet.prepare_environment`) is
    set here, before any library is imported.
    """
    prepare_environment()
    set_verbose(False)
    args = _global_flags_first(list(argv) if argv is not None else sys.argv[1:])
    try:
        with second_interrupt_stops_at_once(), local_model_scope():
            status = app(args=args, prog_name="tribunal", standalone_mode=False)
        if status == EXIT_INTERRUPTED:  # Typer's answer to a bare KeyboardInterrupt: silent 130
            report("interrupted", interrupted=True)
    except (Exception, KeyboardInterrupt) as err:
        if type(err).__name__ == "NoArgsIsHelpError":  # `tribunal` or `tribunal mt` alone: the help
            err.show()  # type: ignore[attr-defined]
            status = err.exit_code  # type: ignore[attr-defined]
        else:
            status = report_error(err)  # re-raises a bug, traceback and all
    finally:
        set_verbose(False)
    if argv is None:  # the process ends here (the console script): see _end_of_process
        _end_of_process()
    sys.exit(status if isinstance(status, int) else 0)


def _end_of_process() -> None:
    """Let the interpreter's exit skip the cycle collections over the whole heap.

    The finalization collects garbage over every object a run left (its data, results, DSPy's and
    pydantic's structures): about 0.17 s of CPU after a 200-item M-MAD run, a twentieth of the
    process. Frozen objects are skipped; every output is closed by now and the atexit handlers
    still run. Not called in-process (tests): the frozen heap would outlive the command.
    """
    gc.freeze()

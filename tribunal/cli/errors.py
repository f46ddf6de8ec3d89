"""Expected failures on the command line: one line on stderr and a documented exit status.

:func:`describe` is the one table of what a user can cause: tribunal's own errors, file-system
errors (read-only folder, full disk, a folder where a file was meant), an unusable MLflow store,
a mistyped option, Ctrl-C. Anything else is a bug and keeps its traceback. Every message passes
through :func:`redact_text` on its way out, so no credential from the environment is printed.
"""

from __future__ import annotations

import errno
import sys
from typing import Callable

from tribunal.errors import EXIT_ERROR, EXIT_INTERRUPTED, Interrupted, TribunalError, UserError

__all__ = ["TribunalError", "UserError", "describe", "report", "report_error", "one_line"]

_MAX_MESSAGE = 600


def one_line(text: str, limit: int = _MAX_MESSAGE) -> str:
    """``text`` on one line (whitespace collapsed), at most ``limit`` characters."""
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def _os_error(err: OSError) -> str:
    where = " -> ".join(str(name) for name in (err.filename, err.filename2) if name is not None)
    reason = err.strerror or str(err)
    if err.errno == errno.ENOSPC:
        reason += " (disk full: free space, then rerun the same command)"
    return f"{where}: {reason}" if where else reason


def _store_error(err: BaseException) -> str:
    from tribunal.eval.tracking.mlflow_run import store_problem  # heavy: pulls in pydantic

    return (f"MLflow tracking store: {store_problem(err)} "
            "(--tracking-uri URI names another store; --no-track skips tracking)")


def _usage_error(err: BaseException) -> str:
    context = getattr(err, "ctx", None)
    hint = f" (see '{context.command_path} --help')" if context is not None else ""
    return f"{err.format_message()}{hint}"  # type: ignore[attr-defined]


def _interrupted(err: BaseException) -> str:
    return str(err) if isinstance(err, Interrupted) else "interrupted"


# (qualified name of an exception class, its message, its exit status); the first class in an
# error's MRO that is listed wins. Names, not classes: MLflow and SQLAlchemy stay unimported
# unless a command used them. Ctrl-C reaches here as KeyboardInterrupt or Abort (Typer turns a bare
# KeyboardInterrupt into exit status 130, which :func:`tribunal.cli.main` reports).
EXPECTED: dict[str, tuple[Callable[[BaseException], str], int | None]] = {
    "tribunal.errors.Interrupted": (_interrupted, EXIT_INTERRUPTED),
    "tribunal.errors.TribunalError": (str, None),  # its own exit_code
    "typer._click.exceptions.UsageError": (_usage_error, EXIT_ERROR),  # Typer's own copy of click
    "click.exceptions.UsageError": (_usage_error, EXIT_ERROR),
    "typer.exceptions.Abort": (_interrupted, EXIT_INTERRUPTED),
    "click.exceptions.Abort": (_interrupted, EXIT_INTERRUPTED),
    "builtins.KeyboardInterrupt": (_interrupted, EXIT_INTERRUPTED),
    "builtins.OSError": (_os_error, EXIT_ERROR),
    "mlflow.exceptions.MlflowException": (_store_error, EXIT_ERROR),
    "sqlalchemy.exc.SQLAlchemyError": (_store_error, EXIT_ERROR),
}


def describe(err: BaseException) -> tuple[str, int] | None:
    """``(one-line message, exit status)`` for an expected failure; None for a bug."""
    for kind in type(err).__mro__:
        entry = EXPECTED.get(f"{kind.__module__}.{kind.__qualname__}")
        if entry is not None:
            message, status = entry
            return message(err), status if status is not None else getattr(err, "exit_code", EXIT_ERROR)
    return None


def report(message: str, interrupted: bool = False) -> None:
    """Print ``tribunal: error: <message>`` (``tribunal: <message>`` for an interruption) on stderr."""
    from tribunal.secrets import redact_text  # startup: kept out of `tribunal --help`

    prefix = "tribunal: " if interrupted else "tribunal: error: "
    print(prefix + one_line(redact_text(message)), file=sys.stderr, flush=True)


def report_error(err: BaseException) -> int:
    """Report an expected failure; returns its exit status. Re-raises a bug unchanged."""
    described = describe(err)
    if described is None:
        raise err
    message, status = described
    report(message, interrupted=status == EXIT_INTERRUPTED)
    return status

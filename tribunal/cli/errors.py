"""User-facing errors on the command line: one line, no traceback."""

from __future__ import annotations

import sys

from tribunal.errors import TribunalError, UserError

__all__ = ["TribunalError", "UserError", "report_error"]


def report_error(err: BaseException) -> None:
    """Print ``tribunal: error: <message>`` on stderr."""
    message = str(err).replace("\n", " ")
    print(f"tribunal: error: {message}", file=sys.stderr)

"""User-facing errors: one line, no traceback."""

from __future__ import annotations

import sys


class UserError(Exception):
    """A problem with what the user asked for (bad option, missing data, ...)."""


def report_error(err: BaseException) -> None:
    """Print ``tribunal: error: <message>`` on stderr."""
    message = str(err).replace("\n", " ")
    print(f"tribunal: error: {message}", file=sys.stderr)

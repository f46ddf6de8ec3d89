"""Errors a user can act on, and the exit statuses the command line ends with.

The CLI prints a :class:`TribunalError` as one line (``tribunal: error: ...``) and exits with its
``exit_code``; the README's "Exit status" section documents the codes.
"""

from __future__ import annotations

EXIT_OK = 0
"""Every item was scored (or the command scores no items and succeeded)."""
EXIT_UNEXPECTED = 1
"""A bug: Python's own status for an uncaught exception (with its traceback)."""
EXIT_ERROR = 2
"""Bad input or a failing environment (file system, tracking store); nothing half-written remains."""
EXIT_UNSCORED = 3
"""The run finished, but some items are unscored; the summary says how many and why."""
EXIT_BUSY = 4
"""Another tribunal run holds the output folder."""
EXIT_CAPPED = 5
"""A spending cap (``--max-cost``, ``--max-calls``) stopped the run: finished items are kept; the summary
says what was spent, what is left and the command that resumes."""
EXIT_INTERRUPTED = 130
"""Stopped by SIGINT (Ctrl-C): finished items are kept; the same command resumes."""


class TribunalError(Exception):
    """Base of every user-facing error."""

    exit_code = EXIT_ERROR


class UserError(TribunalError):
    """A problem with what was asked for: a bad option, a missing metric, missing data."""


class EnvironmentFailure(TribunalError):
    """The machine refused: an unwritable output, a full disk, an unusable tracking store."""


class FolderBusy(TribunalError):
    """Another run holds the advisory lock on the output folder."""

    exit_code = EXIT_BUSY


class SpendingCapReached(TribunalError):
    """A call was refused because a spending cap would be passed; the run stops admitting work.

    Raised inside an item (by its LM, :mod:`tribunal.core.spending_gate`): the runner leaves the item
    unjournaled, so resuming judges it again (its finished calls come from the response cache).
    """

    exit_code = EXIT_CAPPED


class Interrupted(TribunalError):
    """SIGINT stopped the command; the message says what was kept and how to resume."""

    exit_code = EXIT_INTERRUPTED

"""The error that stops a run when the local model server is gone for good (it died again after its restart).

It is an :class:`~dspy.utils.exceptions.LMError`, so DSPy's engine boundary passes it through as it
is and does not retry it, and a :class:`~tribunal.errors.TribunalError`, so the item is not unscored
(:func:`tribunal.eval.mt.failures.classify_failure` leaves tribunal's own errors alone) and the command
ends with its one line and a non-zero status, keeping what the journal holds.
"""

from __future__ import annotations

from dspy.utils.exceptions import LMError

from tribunal.errors import EXIT_ERROR, TribunalError


class LocalServerLost(TribunalError, LMError):
    """The local model server died after its one restart (or its restart failed): the run stops."""

    exit_code = EXIT_ERROR
    default_code = "local_server_lost"

    def __init__(self, headline: str, log: str = ""):
        self.headline, self.log = headline, log  # what happened; the log's path and last lines (said last)
        super().__init__(f"{headline}; {log}" if log else headline)

    def kept(self, journaled: str) -> "LocalServerLost":
        """The same error with what the journal keeps said before the log (a long line is cut at its end)."""
        return LocalServerLost(f"{self.headline} ({journaled})", self.log)

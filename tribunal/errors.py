"""Errors a user can act on. The CLI prints them as one line and exits with status 2."""

from __future__ import annotations


class TribunalError(Exception):
    """Base of every user-facing error."""


class UserError(TribunalError):
    """A problem with what was asked for: a bad option, a missing metric, missing data."""

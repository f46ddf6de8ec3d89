"""The one error type every reader raises: it names the file and line."""

from __future__ import annotations

from pathlib import Path

from tribunal.errors import TribunalError


class DataFormatError(TribunalError, ValueError):
    """A malformed input file. ``str(err)`` is a one-line ``path:line: message``."""

    def __init__(self, path: str | Path, line: int | None, message: str):
        self.path = str(path)
        self.line = line
        self.message = message
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {message}")

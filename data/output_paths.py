"""Checking where results will go before any work starts.

A read-only folder, a folder named where a file is meant, or a file named where a folder is meant
fails in a second with one line, not after an hour of LM calls. The check writes (and removes) a
probe file in the nearest folder that exists, so it creates no folder of its own.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from tribunal.errors import EnvironmentFailure, UserError


def _nearest_existing(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return Path.cwd()


def _probe(folder: Path, option: str, target: Path) -> None:
    if not folder.is_dir():
        raise UserError(f"{option} {target}: {folder} is a file, not a folder")
    try:
        handle, probe = tempfile.mkstemp(dir=folder, prefix=".tribunal-probe-")
    except OSError as err:
        raise EnvironmentFailure(f"{option} {target}: cannot write in {folder}: {err.strerror or err}") from None
    os.close(handle)
    Path(probe).unlink(missing_ok=True)


def writable_file(path: str | Path, option: str) -> Path:
    """``path`` if a file can be written there (its folders are created when the file is written)."""
    path = Path(path)
    if path.is_dir():
        raise UserError(f"{option} {path}: is a folder; name a file")
    _probe(_nearest_existing(path.parent), option, path)
    return path


def writable_folder(path: str | Path, option: str) -> Path:
    """``path`` if it is, or can become, a folder that takes files."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise UserError(f"{option} {path}: is a file; name a folder")
    _probe(_nearest_existing(path), option, path)
    return path

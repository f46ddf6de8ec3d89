"""An advisory lock on an output folder, so two runs never write the same journal and files.

The lock is ``flock`` on ``FOLDER/.tribunal.lock`` (the file records the holder's pid); the
kernel releases it when the holding process ends, however it ends, so a killed run never leaves
the folder locked.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path
from typing import Iterator

from tribunal.errors import FolderBusy

LOCK_NAME = ".tribunal.lock"


@contextlib.contextmanager
def folder_lock(folder: str | Path, option: str = "--out") -> Iterator[Path]:
    """Hold the folder's lock for the enclosed block; :class:`FolderBusy` if another run holds it."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / LOCK_NAME, "a+", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            raise FolderBusy(f"{option} {folder}: busy: another tribunal run ({holder}) is writing there; "
                             f"wait for it to finish or choose another {option}") from None
        try:
            handle.truncate(0)
            handle.write(f"pid {os.getpid()}\n")
            handle.flush()
            yield folder
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)

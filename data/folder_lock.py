"""An advisory lock on an output folder, so two runs never write the same journal and files.

The lock is ``flock`` on ``FOLDER/.tribunal.lock`` (the file records the holder's pid); the
kernel releases it when the holding process ends, however it ends, so a killed run never leaves
the folder locked. A folder the lock created and the run left empty (it stopped on bad input) is
removed again, so a refused command leaves nothing behind.
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
    created = [p for p in (folder, *folder.parents) if not p.exists()]  # innermost first
    folder.mkdir(parents=True, exist_ok=True)
    try:
        with _locked(folder, option):
            yield folder
    finally:
        if created and [p.name for p in folder.iterdir()] == [LOCK_NAME]:
            (folder / LOCK_NAME).unlink(missing_ok=True)
            with contextlib.suppress(OSError):  # a folder someone else filled meanwhile stays
                for made in created:
                    made.rmdir()


@contextlib.contextmanager
def _locked(folder: Path, option: str) -> Iterator[None]:
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
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)

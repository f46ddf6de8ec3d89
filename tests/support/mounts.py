"""Real read-only and full file systems for the fault tests: small tmpfs mounts.

Tests run as root, so mode bits do not stop a write; a read-only mount does, and a tiny tmpfs
runs out of space for real. Where mounting is not permitted the test is skipped (each fault also
has a test that injects the ``OSError``).
"""

from __future__ import annotations

import contextlib
import subprocess
from pathlib import Path
from typing import Iterator

import pytest


class MountProbe:
    """Whether a tmpfs can be mounted here (truthy), and why not (``reason``)."""

    def __init__(self, ok: bool, reason: str = ""):
        self.ok, self.reason = ok, reason

    def __bool__(self) -> bool:
        return self.ok


def can_mount(folder: Path) -> MountProbe:
    """Try to mount (and unmount) a tiny tmpfs at ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as err:
        return MountProbe(False, f"cannot mount a tmpfs here ({err})")
    if done.returncode != 0:
        return MountProbe(False, f"cannot mount a tmpfs here ({done.stderr.strip() or done.returncode})")
    _unmount(folder)
    return MountProbe(True)


def _mount(folder: Path, options: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as err:
        pytest.skip(f"cannot mount a tmpfs here ({err})")
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip() or done.returncode})")


def _unmount(folder: Path) -> None:
    subprocess.run(["umount", "-l", str(folder)], capture_output=True, timeout=30)


@contextlib.contextmanager
def read_only_folder(folder: Path, files: dict[str, bytes] | None = None) -> Iterator[Path]:
    """``folder`` as a read-only tmpfs holding ``files``."""
    _mount(folder, "size=4m")
    try:
        for name, data in (files or {}).items():
            (folder / name).write_bytes(data)
        subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True, capture_output=True, timeout=30)
        yield folder
    finally:
        _unmount(folder)


@contextlib.contextmanager
def full_disk(folder: Path, free_bytes: int = 0) -> Iterator[Path]:
    """``folder`` as a 1 MiB tmpfs filled up to ``free_bytes`` of free space (0: completely full)."""
    _mount(folder, "size=1m")
    try:
        filler = folder / ".filler"
        with contextlib.suppress(OSError), filler.open("wb") as handle:
            handle.write(b"\0" * (1 << 20))
        if free_bytes:
            filler.write_bytes(b"\0" * max(0, filler.stat().st_size - free_bytes))
        yield folder
    finally:
        _unmount(folder)

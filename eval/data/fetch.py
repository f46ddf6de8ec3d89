"""Download and unpack the official mt-metrics-eval archive (for users with internet access).

The archive holds ``<top>/wmt23/...`` among other test sets; only ``wmt23`` is kept. Extraction
goes to a temporary folder beside the destination and is moved into place only when complete.
"""

from __future__ import annotations

import shutil
import tarfile
import tempfile
import urllib.request
from pathlib import Path, PurePosixPath
from typing import Callable

from tribunal.eval.data.errors import DataFormatError

MTME_ARCHIVE_URL = "https://storage.googleapis.com/mt-metrics-eval/mt-metrics-eval-v2.tgz"
_CHUNK = 1 << 20

Progress = Callable[[int, int | None], None]
"""Called with (bytes so far, total bytes or None)."""


def download(url: str, target: Path, progress: Progress | None = None, timeout: float = 60.0) -> None:
    """Stream ``url`` into ``target`` (written under a temporary name, then renamed)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".part")
    with urllib.request.urlopen(url, timeout=timeout) as response, partial.open("wb") as out:
        total = response.headers.get("Content-Length")
        total = int(total) if total and total.isdigit() else None
        done = 0
        while chunk := response.read(_CHUNK):
            out.write(chunk)
            done += len(chunk)
            if progress:
                progress(done, total)
    partial.replace(target)


def _wmt23_members(archive: tarfile.TarFile, name: str) -> list[tuple[tarfile.TarInfo, PurePosixPath]]:
    """Members under a ``<...>/<name>/`` folder, with their path relative to it."""
    chosen = []
    for member in archive.getmembers():
        path = PurePosixPath(member.name)
        if path.is_absolute() or ".." in path.parts:
            raise DataFormatError(member.name, None, "unsafe path in archive")
        if name not in path.parts or not (member.isfile() or member.isdir()):
            continue
        relative = PurePosixPath(*path.parts[path.parts.index(name) + 1:])
        chosen.append((member, relative))
    return chosen


def extract_test_set(archive_path: Path, dest_root: Path, name: str = "wmt23", force: bool = False) -> Path:
    """Unpack ``<name>/`` from an mt-metrics-eval archive into ``dest_root/<name>``."""
    final = dest_root / name
    if final.exists() and not force:
        raise DataFormatError(final, None, "already exists (use --force to replace it)")
    dest_root.mkdir(parents=True, exist_ok=True)
    try:
        archive = tarfile.open(archive_path)
    except tarfile.TarError as err:
        raise DataFormatError(archive_path, None, f"not a readable tar archive: {err}") from None
    with archive, tempfile.TemporaryDirectory(dir=dest_root, prefix=f".{name}.") as tmp:
        members = _wmt23_members(archive, name)
        if not any(rel.parts[:1] == ("sources",) for _, rel in members):
            raise DataFormatError(archive_path, None, f"archive holds no {name}/sources folder")
        staging = Path(tmp) / name
        for member, relative in members:
            out = staging / relative
            if member.isdir():
                out.mkdir(parents=True, exist_ok=True)
                continue
            out.parent.mkdir(parents=True, exist_ok=True)
            with archive.extractfile(member) as source, out.open("wb") as sink:
                shutil.copyfileobj(source, sink)
        if final.exists():
            shutil.rmtree(final)
        staging.replace(final)
    return final

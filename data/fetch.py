"""Download and unpack the official mt-metrics-eval archive (for users with internet access).

The current archive (``mt-metrics-eval-v2.tgz``) holds ``<top>/wmt19`` ... ``<top>/wmt25`` and
``<top>/wmt24pp``; only the requested test sets are kept. The archive is read once, as a stream
(it is several GB), into a temporary folder beside the destination; each test set is moved into
place only when the whole archive has been read without error, so a failure leaves nothing
half-written.
"""

from __future__ import annotations

import gzip
import shutil
import tarfile
import tempfile
import urllib.request
import zlib
from pathlib import Path, PurePosixPath
from typing import Callable

from tribunal.data.errors import DataFormatError

MTME_ARCHIVE_URL = "https://storage.googleapis.com/mt-metrics-eval/mt-metrics-eval-v2.tgz"
TEST_SETS = ("wmt23", "wmt24", "wmt24pp", "wmt25")
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


def _placement(member: tarfile.TarInfo, names: tuple[str, ...]) -> tuple[str, PurePosixPath] | None:
    """(test set, path inside it) of an archive member under a ``<...>/<name>/`` folder, else None."""
    path = PurePosixPath(member.name)
    if path.is_absolute() or ".." in path.parts:
        raise DataFormatError(member.name, None, "unsafe path in archive")
    if not (member.isfile() or member.isdir()):  # links and devices are never unpacked
        return None
    for depth, part in enumerate(path.parts):
        if part in names:
            return part, PurePosixPath(*path.parts[depth + 1:])
    return None


def extract_test_sets(archive_path: Path, dest_root: Path, names: tuple[str, ...] = ("wmt23",),
                      force: bool = False) -> dict[str, Path]:
    """Unpack each ``<name>/`` of an mt-metrics-eval archive into ``dest_root/<name>``, in one pass."""
    finals = {name: dest_root / name for name in names}
    for final in finals.values():
        if final.exists() and not force:
            raise DataFormatError(final, None, "already exists (use --force to replace it)")
    dest_root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=dest_root, prefix=".fetch.") as tmp:
        staging = Path(tmp)
        try:
            with tarfile.open(archive_path, mode="r|*") as archive:
                for member in archive:
                    placed = _placement(member, names)
                    if placed is None:
                        continue
                    out = staging / placed[0] / placed[1]
                    if member.isdir():
                        out.mkdir(parents=True, exist_ok=True)
                        continue
                    out.parent.mkdir(parents=True, exist_ok=True)
                    with archive.extractfile(member) as source, out.open("wb") as sink:
                        shutil.copyfileobj(source, sink)
        except (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile) as err:
            raise DataFormatError(archive_path, None, f"not a readable tar archive: {err}") from None
        for name in names:
            if not (staging / name / "sources").is_dir():
                raise DataFormatError(archive_path, None, f"archive holds no {name}/sources folder")
        for name, final in finals.items():
            if final.exists():
                shutil.rmtree(final)
            (staging / name).replace(final)
    return finals


def extract_test_set(archive_path: Path, dest_root: Path, name: str = "wmt23", force: bool = False) -> Path:
    """Unpack ``<name>/`` from an mt-metrics-eval archive into ``dest_root/<name>``."""
    return extract_test_sets(archive_path, dest_root, (name,), force)[name]

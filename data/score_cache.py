"""Read each score file once: its parsed arrays, cached on disk, keyed by the file's identity and content.

An entry holds what a parser made of one file (names and float64 / int64 arrays), with the file's
absolute path, identity (size, mtime, ctime, inode, device) and the sha256 of its content. An
entry is used without reading the file when the identity is unchanged and the entry is
*settled*; otherwise the file is read and hashed, and the arrays are reused only if the content
hash is the one recorded (a ``touch`` or a copy costs a hash, not a parse), else it is parsed
anew. sha256 is cheap here (the CPU's SHA extensions; about 1-2 GB/s) and is the same digest the
run signature uses, so a warm run hashes nothing.

Why the identity check is enough for a settled entry: a write, truncation, ``chmod`` or
``os.utime`` sets the file's ctime to the current time, which no program can set back, and a
file renamed into place has another inode. The one gap is the clock's granularity: a change in
the same tick as the read that filled the entry could leave every field equal. So an entry is
settled only when the file's ctime was more than :data:`SETTLE_NS` older than that read (as git
treats "racily clean" index entries); an unsettled entry is checked by content hash on every
use, and settled once a check finds the file old enough.

Concurrent runs are safe without locks: an entry is written to a temporary file in the cache
folder and renamed over the old one (readers see the old entry or the new one, never part of
either); an unreadable or foreign entry counts as a miss. Errors of the file itself (a malformed
line) are raised by the parser and never cached. A cache folder that cannot be written only
costs the speed-up.

Location: ``$TRIBUNAL_CACHE``, else ``$XDG_CACHE_HOME/tribunal``, else ``~/.cache/tribunal``;
entries live in its ``scores/`` folder (``tribunal data cache clear`` empties it).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

MAGIC = b"TRIBSC01"
FORMAT = 1
"""Bumped when the entry layout or a parser's output changes: older entries are then misses."""
SETTLE_NS = 2_000_000_000
SUBFOLDER = "scores"


@dataclass
class Parsed:
    """What a parser made of one file: lists of names and 1-D float64 / int64 arrays."""

    strings: dict[str, list[str]] = field(default_factory=dict)
    arrays: dict[str, np.ndarray] = field(default_factory=dict)


def cache_root() -> Path:
    """The user's tribunal cache folder (``$TRIBUNAL_CACHE``, ``$XDG_CACHE_HOME/tribunal``, ``~/.cache/tribunal``)."""
    if os.environ.get("TRIBUNAL_CACHE"):
        return Path(os.environ["TRIBUNAL_CACHE"]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "tribunal"


def _identity(st: os.stat_result) -> list[int]:
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]


def _encode(header: dict, parsed: Parsed) -> bytes:
    arrays = [(name, np.ascontiguousarray(a)) for name, a in parsed.arrays.items()]
    header = {**header, "strings": parsed.strings, "arrays": [[n, a.dtype.str, len(a)] for n, a in arrays]}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-(len(MAGIC) + 4 + len(text)) % 8)  # payload 8-byte aligned
    return b"".join([MAGIC, len(text).to_bytes(4, "little"), text] + [a.tobytes() for _, a in arrays])


def _decode(data: bytearray) -> tuple[dict, Parsed]:
    """Header and arrays of an entry (the arrays are writable views of ``data``); ValueError if damaged."""
    if data[:len(MAGIC)] != MAGIC:
        raise ValueError("not a score cache entry")
    start = len(MAGIC) + 4
    end = start + int.from_bytes(data[len(MAGIC):start], "little")
    header = json.loads(bytes(data[start:end]))
    parsed, offset = Parsed(strings=header.pop("strings")), end
    for name, dtype, length in header.pop("arrays"):
        parsed.arrays[name] = np.frombuffer(data, dtype=np.dtype(dtype), count=length, offset=offset)
        offset += parsed.arrays[name].nbytes
    if offset != len(data):
        raise ValueError("truncated score cache entry")
    return header, parsed


class ScoreCache:
    """Parsed score files under ``folder`` (see the module docstring); thread-safe."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self._digests: dict[tuple[str, tuple[int, ...]], str] = {}
        self._lock = threading.Lock()
        self.stats = {"hit": 0, "verified": 0, "parsed": 0}
        """Loads served from an entry unread, from an entry after a content check, and by parsing."""

    @classmethod
    def default(cls) -> "ScoreCache":
        """The cache in the user's cache folder."""
        return cls(cache_root() / SUBFOLDER)

    def _entry_path(self, path: str, kind: str) -> Path:
        return self.folder / (hashlib.sha256(f"{FORMAT}\0{kind}\0{path}".encode()).hexdigest()[:40] + ".bin")

    def _read_entry(self, entry: Path, path: str, kind: str) -> tuple[dict, Parsed] | None:
        try:
            with open(entry, "rb") as handle:
                data = bytearray(os.fstat(handle.fileno()).st_size)
                handle.readinto(data)
            header, parsed = _decode(data)
        except (OSError, ValueError, KeyError, TypeError):  # missing, damaged or foreign: a miss
            return None
        if header.get("format") != FORMAT or header.get("path") != path or header.get("kind") != kind:
            return None
        return header, parsed

    def _store(self, entry: Path, header: dict, parsed: Parsed) -> None:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            handle, tmp = tempfile.mkstemp(dir=self.folder, prefix=".", suffix=".tmp")
            try:
                with os.fdopen(handle, "wb") as out:
                    out.write(_encode(header, parsed))
                os.replace(tmp, entry)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError:  # a read-only or full cache folder: the run goes on uncached
            pass

    def _remember(self, path: str, identity: list[int], digest: str, how: str) -> None:
        with self._lock:
            self._digests[path, tuple(identity)] = digest
            self.stats[how] += 1

    def load(self, path: str | Path, kind: str, parse: Callable[[bytes], Parsed]) -> Parsed:
        """The parse of ``path`` by ``parse`` (named ``kind``), from the cache when it is still valid."""
        path = os.path.abspath(path)
        entry = self._entry_path(path, kind)
        started = time.time_ns()
        before = os.stat(path)
        identity = _identity(before)
        cached = self._read_entry(entry, path, kind)
        if cached is not None and cached[0]["identity"] == identity and cached[0]["settled"]:
            self._remember(path, identity, cached[0]["sha256"], "hit")
            return cached[1]
        with open(path, "rb") as handle:
            content = handle.read()
        digest = hashlib.sha256(content).hexdigest()
        reused = cached is not None and cached[0]["sha256"] == digest
        parsed = cached[1] if reused else parse(content)
        if _identity(os.stat(path)) == identity:  # the file did not change while it was read
            settled = before.st_ctime_ns < started - SETTLE_NS
            header = {"format": FORMAT, "kind": kind, "path": path, "identity": identity, "sha256": digest,
                      "settled": settled}
            if cached is None or cached[0] != header:
                self._store(entry, header, parsed)
        self._remember(path, identity, digest, "verified" if reused else "parsed")
        return parsed

    def sha256(self, path: str | Path) -> bytes:
        """The sha256 of a file's content: known without reading it if this process loaded it unchanged."""
        path = os.path.abspath(path)
        known = self._digests.get((path, tuple(_identity(os.stat(path)))))
        if known is not None:
            return bytes.fromhex(known)
        with open(path, "rb") as handle:
            return hashlib.file_digest(handle, "sha256").digest()

    def clear(self) -> tuple[int, int]:
        """Remove every entry; returns (entries, bytes) removed."""
        count = size = 0
        if not self.folder.is_dir():
            return 0, 0
        for item in self.folder.iterdir():
            if item.is_file() and (item.suffix in (".bin", ".tmp")):
                try:
                    size += item.stat().st_size
                    item.unlink()
                    count += 1
                except FileNotFoundError:  # another process removed or replaced it meanwhile
                    pass
        return count, size

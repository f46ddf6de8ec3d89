"""The run journal: an append-only JSONL file of finished items, fsync'd after each one.

A journal belongs to one configuration: its file name carries a hash of the configuration
signature and its first line records the full signature, so a run with another configuration
never reuses it. The file is created with the first item, so a run refused before judging leaves
none. It only ever grows by whole lines: an append that fails (a full disk) is cut back to the
last whole line before the error is raised, and a line torn by a killed process (the last one)
is ignored and rewritten on resume.

A degraded item (scored with a fallback, ``degraded`` lists them) is judged again by ``--retry-unscored``.
An unscored item is journaled with ``retryable``: true when no usable answer was obtained
(see :mod:`tribunal.eval.mt.failures`), so a rerun of the same command judges it again; a
permanent failure (an unusable answer) is judged again only with ``--retry-unscored``.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from tribunal.core.item_result import ItemResult
from tribunal.errors import EnvironmentFailure
from tribunal.data.atomic import write_text_atomically
from tribunal.data.errors import DataFormatError
from tribunal.secrets import redact_text
from tribunal.eval.tracking.signature import text_hash


def journal_path(out: Path, config_signature: str) -> Path:
    return Path(out) / f"journal-{text_hash(config_signature)}.jsonl"


class JournalWriteError(EnvironmentFailure):
    """The journal could not take a line (e.g. a full disk); it still ends in a whole line."""


class Journal:
    """Finished items of one configuration; safe to append from worker threads."""

    def __init__(self, path: str | Path, config_signature: str):
        self.path = Path(path)
        self.signature = config_signature
        self.results: dict[str, ItemResult] = {}
        self._lock = threading.Lock()
        self._started = self.path.exists() and self.path.stat().st_size > 0
        if self._started:
            self._load()

    def _start(self) -> None:
        """Write the header line, atomically: a journal never starts with half a header."""
        if not self._started:
            header = json.dumps({"journal": 1, "signature": self.signature}, ensure_ascii=False)
            write_text_atomically(self.path, redact_text(header) + "\n")
            self._started = True

    def _load(self) -> None:
        lines = self.path.read_text(encoding="utf-8").split("\n")
        try:
            header = json.loads(lines[0])
        except json.JSONDecodeError:
            raise DataFormatError(self.path, 1, "not a tribunal journal (bad header)") from None
        if not isinstance(header, dict) or header.get("signature") != self.signature:
            found = header.get("signature") if isinstance(header, dict) else None
            raise DataFormatError(self.path, 1, f"journal of another configuration: {found!r}")
        good = [lines[0]]
        for number, line in enumerate(lines[1:], 2):
            if not line:
                continue
            try:
                result = ItemResult.model_validate_json(line)
            except ValueError:
                if number >= len(lines) - 1:  # the torn last line of a killed run
                    break
                raise DataFormatError(self.path, number, "corrupt journal line") from None
            self.results[result.key] = result
            good.append(line)
        if len(good) - 1 != sum(1 for line in lines[1:] if line) or lines[-1] != "":
            write_text_atomically(self.path, "\n".join(good) + "\n")  # a crash here keeps the old journal

    def _append_line(self, line: str) -> None:
        """Append one whole line durably, or leave the file as it was and raise."""
        data = (line + "\n").encode("utf-8")
        handle = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        try:
            size = os.fstat(handle).st_size
            written = 0
            try:
                while written < len(data):
                    written += os.write(handle, data[written:])
                os.fsync(handle)
            except BaseException as err:  # a full disk, or Ctrl-C between two partial writes
                if isinstance(err, OSError) or written < len(data):
                    os.ftruncate(handle, size)  # shrinking needs no space: back to the last whole line
                if isinstance(err, OSError):
                    reason = err.strerror or str(err)
                    raise JournalWriteError(f"{self.path}: cannot append to the journal: {reason}") from None
                raise
        finally:
            os.close(handle)

    def done(self, key: str, retry_unscored: bool = False) -> bool:
        """Whether ``key`` needs no judging: scored, or unscored for a permanent reason (unless retried);
        ``retry_unscored`` also judges degraded items again."""
        result = self.results.get(key)
        if result is None:
            return False
        if result.status == "scored":
            return not (result.degraded and retry_unscored)
        return not (result.retryable or retry_unscored)

    def append(self, result: ItemResult) -> None:
        """Record a finished item durably (redacted: no credential reaches the file)."""
        line = redact_text(json.dumps(result.model_dump(mode="json"), ensure_ascii=False))
        with self._lock:
            self._start()
            self._append_line(line)
            self.results[result.key] = ItemResult.model_validate_json(line)

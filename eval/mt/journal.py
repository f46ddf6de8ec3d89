"""The run journal: an append-only JSONL file of finished items, fsync'd after each one.

A journal belongs to one configuration: its file name carries a hash of the configuration
signature and its first line records the full signature, so a run with another configuration
never reuses it. A line torn by a crash (the last one) is ignored and rewritten on resume.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from tribunal.eval.data.atomic import write_text_atomically
from tribunal.eval.data.errors import DataFormatError
from tribunal.eval.tracking.secrets import redact_text
from tribunal.eval.tracking.signature import text_hash


class ItemResult(BaseModel):
    """What judging one item produced: a score, or no score and the reason."""

    model_config = ConfigDict(extra="forbid")

    key: str
    status: Literal["scored", "unscored"]
    score: float | None = None
    reason: str | None = None
    errors: list[dict[str, Any]] = []
    transcript: list[dict[str, Any]] = []
    debates: dict[str, Any] = {}
    usage: dict[str, dict[str, int]] = {}
    seconds: float = 0.0
    trace: dict[str, Any] = {}  # start, end and predictor calls (tribunal.eval.tracking.call_log), for MLflow traces


def journal_path(out: Path, config_signature: str) -> Path:
    return Path(out) / f"journal-{text_hash(config_signature)}.jsonl"


class Journal:
    """Finished items of one configuration; safe to append from worker threads."""

    def __init__(self, path: str | Path, config_signature: str):
        self.path = Path(path)
        self.signature = config_signature
        self.results: dict[str, ItemResult] = {}
        self._lock = threading.Lock()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists() and self.path.stat().st_size:
            self._load()
        else:
            self._write_line({"journal": 1, "signature": config_signature}, truncate=True)

    def _load(self) -> None:
        lines = self.path.read_text(encoding="utf-8").split("\n")
        try:
            header = json.loads(lines[0])
        except json.JSONDecodeError:
            raise DataFormatError(self.path, 1, "not a tribunal journal (bad header)") from None
        if header.get("signature") != self.signature:
            raise DataFormatError(self.path, 1, f"journal of another configuration: {header.get('signature')!r}")
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
        if len(good) - 1 != sum(1 for line in lines[1:] if line):
            write_text_atomically(self.path, "\n".join(good) + "\n")  # a crash here keeps the old journal

    def _write_line(self, record: dict[str, Any], truncate: bool = False) -> str:
        line = redact_text(json.dumps(record, ensure_ascii=False))
        with self.path.open("w" if truncate else "a", encoding="utf-8") as handle:
            handle.write(line + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        return line

    def done(self, key: str, retry_unscored: bool = False) -> bool:
        result = self.results.get(key)
        return result is not None and not (retry_unscored and result.status == "unscored")

    def append(self, result: ItemResult) -> None:
        """Record a finished item durably (redacted: no credential reaches the file)."""
        with self._lock:
            line = self._write_line(result.model_dump(mode="json"))
            self.results[result.key] = ItemResult.model_validate_json(line)

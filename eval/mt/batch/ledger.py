"""The batch ledger: an append-only, fsync'd JSONL record of a batch run's submissions and answers.

One ledger per configuration (beside the run journal, keyed by the same signature). Records:
``submitting`` (a batch's request keys, written before the provider is called), ``note`` (what the
provider made on the way, e.g. OpenAI's input file id), ``submitted`` (the provider's batch id),
``answer`` / ``failed`` (a request's response body or failure reason) and ``collected`` (all of a
batch's outcomes are recorded). On restart a submitted, uncollected batch is re-attached (polled,
not paid again), and answers already downloaded answer their requests without any call.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tribunal.data.errors import DataFormatError
from tribunal.eval.tracking.signature import text_hash


@dataclass
class BatchRecord:
    number: int
    provider: str
    keys: list[str]
    notes: dict[str, Any] = field(default_factory=dict)
    id: str | None = None
    collected: bool = False


def ledger_path(out: Path, config_signature: str) -> Path:
    return Path(out) / f"batches-{text_hash(config_signature)}.jsonl"


class BatchLedger:
    """Answers, failures and batches of one configuration's batch runs."""

    def __init__(self, path: str | Path, config_signature: str):
        self.path = Path(path)
        self.answers: dict[str, dict[str, Any]] = {}
        self.failures: dict[str, list[str]] = {}
        self.batches: dict[int, BatchRecord] = {}
        self._lock = threading.Lock()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists() and self.path.stat().st_size:
            self._load(config_signature)
        else:
            self._append([{"ledger": 1, "signature": config_signature}], mode="w")

    def _load(self, signature: str) -> None:
        lines = self.path.read_text(encoding="utf-8").split("\n")
        try:
            header = json.loads(lines[0])
        except json.JSONDecodeError:
            raise DataFormatError(self.path, 1, "not a tribunal batch ledger (bad header)") from None
        if header.get("signature") != signature:
            raise DataFormatError(self.path, 1, f"batch ledger of another configuration: {header.get('signature')!r}")
        for number, line in enumerate(lines[1:], 2):
            if not line:
                continue
            try:
                self._apply(json.loads(line))
            except (json.JSONDecodeError, KeyError):
                if number >= len(lines) - 1:
                    break  # the torn last line of a killed run: that record never happened
                raise DataFormatError(self.path, number, "corrupt batch ledger line") from None

    def _apply(self, record: dict[str, Any]) -> None:
        kind = record["kind"]
        if kind == "answer":
            self.answers[record["key"]] = record["response"]
        elif kind == "failed":
            self.failures.setdefault(record["key"], []).append(record["reason"])
        elif kind == "submitting":
            self.batches[record["batch"]] = BatchRecord(record["batch"], record["provider"], record["keys"])
        elif kind == "note":
            self.batches[record["batch"]].notes.update(record["notes"])
        elif kind == "submitted":
            self.batches[record["batch"]].id = record["id"]
        elif kind == "collected":
            self.batches[record["batch"]].collected = True

    def _append(self, records: list[dict[str, Any]], mode: str = "a") -> None:
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
        with self.path.open(mode, encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())

    def record(self, *records: dict[str, Any]) -> None:
        """Write ``records`` durably, then apply them."""
        with self._lock:
            self._append(list(records))
            for record in records:
                self._apply(record)

    def open_batch(self, provider: str, keys: list[str]) -> BatchRecord:
        number = max(self.batches, default=0) + 1
        self.record({"kind": "submitting", "batch": number, "provider": provider, "keys": keys})
        return self.batches[number]

    def pending(self) -> list[BatchRecord]:
        """Batches started and not collected (in submission order)."""
        return [b for b in self.batches.values() if not b.collected]

    def in_flight_keys(self) -> set[str]:
        return {key for batch in self.pending() for key in batch.keys}

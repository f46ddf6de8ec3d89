"""What a batch is made of: request lines, their outcomes, and what a batch provider does with them."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Protocol


@dataclass(frozen=True)
class BatchLine:
    """One request of a batch: its ``custom_id`` is the request key (identical requests share it)."""

    custom_id: str
    body: dict[str, Any]

    def size(self) -> int:
        """Bytes of the line in a JSONL input file (an upper bound for the JSON of a message batch)."""
        return len(json.dumps({"custom_id": self.custom_id, "body": self.body}, ensure_ascii=False).encode()) + 80


@dataclass(frozen=True)
class Outcome:
    """A line's result: a ``response`` body, or the ``error`` that kept it from one."""

    custom_id: str
    response: dict[str, Any] | None = None
    error: str | None = None


class BatchProvider(Protocol):
    name: str
    max_requests: int
    max_bytes: int

    def body(self, request: Any) -> dict[str, Any]: ...

    def response(self, body: dict[str, Any], request: Any) -> Any: ...

    def submit(self, lines: list[BatchLine], note: Callable[[dict[str, Any]], None]) -> str: ...

    def recover(self, notes: dict[str, Any]) -> str | None: ...

    def ended(self, batch_id: str) -> tuple[bool, dict[str, Any]]: ...

    def outcomes(self, batch_id: str) -> Iterator[Outcome]: ...

    def cancel(self, batch_id: str) -> None: ...

"""An item's predictor calls as its call log recorded them: the raw material of its MLflow trace.

Written by ``tribunal.eval.tracking.call_log.CallLog.trace``: the unit's start and end (epoch seconds)
and one record per predictor call (stage, role, signature, times, inputs, typed outputs or the error,
tokens, model). The records are JSON; the fields tribunal's readers rely on are typed, the rest kept as JSON.
"""

from __future__ import annotations


from pydantic import JsonValue

from tribunal.core.json_record import JsonRecord


class TracedCall(JsonRecord):
    """One predictor call (its inputs, outputs, error and token counts kept as recorded)."""

    stage: str | None = None
    role: str | None = None
    subject: str | None = None
    signature: str | None = None
    start: float | None = None
    end: float | None = None
    lm_calls: int = 0
    sample: int | None = None
    inputs: JsonValue = None
    outputs: JsonValue = None
    error: str | None = None

    def as_json(self) -> dict[str, JsonValue]:
        """The record as the call log wrote it (what the trace builders and the transcripts file read)."""
        return self.model_dump(mode="json")


class CallTrace(JsonRecord):
    """The calls of one unit of work, with its start and end."""

    start: float | None = None
    end: float | None = None
    calls: list[TracedCall] = []

    def call_records(self) -> list[dict[str, JsonValue]]:
        """The calls as JSON records, in order."""
        return [call.as_json() for call in self.calls]

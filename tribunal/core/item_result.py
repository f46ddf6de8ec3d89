"""What judging one MT item produced (one journal line): a score, or no score and the reason.

Every part is typed (:mod:`tribunal.core.judged_error`, :mod:`tribunal.core.judgment_step`,
:mod:`tribunal.core.usage_counts`, :mod:`tribunal.core.call_trace`, :mod:`tribunal.core.ensemble_record`,
:mod:`tribunal.core.degraded_role`) and dumps as the JSON it was read from, so a journal line is written as
before. Lines journaled before the judgment had a type still load (:meth:`ItemResult._read_old_line`): their
``debates`` (M-MAD's debate summaries, now read off the transcript's steps) are dropped, and an empty
``trace`` or ``ensemble`` (``{}``) means none.
"""

from __future__ import annotations

from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, JsonValue, SerializerFunctionWrapHandler, field_serializer, \
    model_validator

from tribunal.core.call_trace import CallTrace
from tribunal.core.degraded_role import DegradedRole
from tribunal.core.ensemble_record import EnsembleRecord
from tribunal.core.judged_error import JudgedError
from tribunal.core.judgment_step import Step, debate_summaries
from tribunal.core.mt_judgment import MTJudgment
from tribunal.core.usage_counts import UsageCounts

OLD_FIELDS = ("debates",)
"""Keys journal lines once had and no longer have (their content is read off other fields)."""


class ItemResult(BaseModel):
    """What judging one item produced: a score, or no score and the reason."""

    model_config = ConfigDict(extra="forbid")

    key: str
    status: Literal["scored", "unscored"]
    score: float | None = None
    reason: str | None = None
    raw: str | None = None
    """The LM's unusable answer (redacted, truncated) when the reason is an unparseable answer."""
    retryable: bool = False  # unscored without a usable answer: a rerun of the same command retries it
    transient: bool = False  # unscored by a failure a fresh ask may not repeat: the run's second pass retries it
    errors: list[JudgedError] = []
    transcript: list[Step] = []
    usage: UsageCounts = UsageCounts()
    seconds: float = 0.0
    trace: CallTrace | None = None  # start, end and predictor calls (tribunal.eval.tracking.call_log), for MLflow traces
    ensemble: EnsembleRecord | None = None  # a sampled ensemble's K scores, spread and what was kept (eval.mt.ensemble)
    degraded: list[DegradedRole] = []
    """Scored, but with fallbacks (tribunal.programs.fallbacks): which role, why, what stood in."""

    @model_validator(mode="before")
    @classmethod
    def _read_old_line(cls, data: object) -> object:
        """A line of an older journal: without its ``debates``, an empty trace or ensemble as none."""
        if not isinstance(data, dict):
            return data
        data = {k: v for k, v in data.items() if k not in OLD_FIELDS}
        for name in ("trace", "ensemble"):
            if data.get(name) == {}:
                data[name] = None
        return data

    @field_serializer("trace", "ensemble", mode="wrap")
    def _none_as_empty(self, value: CallTrace | EnsembleRecord | None,
                       handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        """None is written ``{}``, as journal lines always wrote it (the rest dumped by ``handler``, not again)."""
        return {} if value is None else handler(value)

    @classmethod
    def of_judgment(cls, key: str, judgment: MTJudgment, usage: UsageCounts | dict[str, dict[str, int]],
                    seconds: float, trace: CallTrace | dict[str, JsonValue] | None,
                    transcript: list[Step] | None = None) -> Self:
        """A scored item from its judgment (``transcript``: the steps to keep instead of the judgment's)."""
        return cls(key=key, status="scored", score=judgment.score, errors=judgment.errors,
                   transcript=judgment.transcript if transcript is None else transcript, usage=usage,
                   seconds=seconds, trace=trace or None, ensemble=judgment.ensemble, degraded=judgment.degraded)

    @property
    def debates(self) -> dict[str, dict[str, JsonValue]]:
        """M-MAD's debates, ``{dimension: {rounds, consensus, decided_by}}``, read off the transcript's steps."""
        return debate_summaries(self.transcript, self.ensemble.chosen if self.ensemble else None)

    def call_records(self) -> list[dict[str, JsonValue]]:
        """The item's predictor calls as the call log recorded them (none without a trace)."""
        return self.trace.call_records() if self.trace is not None else []

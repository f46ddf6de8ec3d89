"""What judging one MT item produced (one journal line): a score, or no score and the reason."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict


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
    errors: list[dict[str, Any]] = []
    transcript: list[dict[str, Any]] = []
    debates: dict[str, Any] = {}
    usage: dict[str, dict[str, int]] = {}
    seconds: float = 0.0
    trace: dict[str, Any] = {}  # start, end and predictor calls (tribunal.eval.tracking.call_log), for MLflow traces
    ensemble: dict[str, Any] = {}  # a sampled ensemble's K scores, spread and what was kept (tribunal.eval.mt.ensemble)
    degraded: list[dict[str, Any]] = []
    """Scored, but with fallbacks (tribunal.programs.fallbacks): ``[{role, reason, stood_in, subject?}]``."""

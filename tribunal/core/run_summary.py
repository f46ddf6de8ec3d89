"""The summary of one run as data: what ``summary.json`` in a run's output folder holds.

Every run command (``mt evaluate``, ``optimize``, ``equiv audit``, ``hyp run``, the demo's steps)
writes one :class:`RunSummary` and prints its terminal summary from it, so the file and the
terminal never disagree. The top level carries what every run has (``calls``, ``spend_usd``,
``items``, ``signature``, ``mlflow_run_id``, ``stopped_by``); ``roles`` the calls and tokens per
role; ``meta`` and ``spans`` the meta-evaluation and span figures; ``details`` the command's own
figures (for ``mt evaluate``: every key its summary line reads). Undefined figures (a correlation
over one system) are ``null``, never ``NaN``, so the file is strict JSON.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError, field_validator

SUMMARY_FORMAT = "tribunal.run-summary/1"
SUMMARY_FILE = "summary.json"


class ItemCounts(BaseModel):
    """Items of the run: scored (degraded among them), unscored with reasons, and those never judged."""

    model_config = ConfigDict(extra="forbid")

    total: int = 0
    scored: int = 0
    unscored: int = 0
    degraded: int = 0
    """Scored with a fallback after a role stayed unusable (counted in ``scored`` too)."""
    left: int = 0
    """Not judged in this run (stopped by a spending cap): the command in ``cap.resume`` judges them."""
    unscored_reasons: dict[str, int] = Field(default_factory=dict)
    degraded_reasons: dict[str, int] = Field(default_factory=dict)
    """Degraded items by the role that fell back."""


class RoleUsage(BaseModel):
    """One role's (``stage/role``) LM calls and tokens."""

    model_config = ConfigDict(extra="forbid")

    calls: int = 0
    paid: int = 0
    cached: int = 0
    failed: int = 0
    reasks: int = 0
    runaways: int = 0
    """Cut answers that repeated themselves (0 where the usage meter does not count them)."""
    prompt_tokens: int = 0
    completion_tokens: int = 0


class CapStatus(BaseModel):
    """The spending caps of the run and what they left (``--max-cost``, ``--max-calls``)."""

    model_config = ConfigDict(extra="forbid")

    max_cost_usd: float | None = None
    max_calls: int | None = None
    spent_usd: float = 0.0
    """What this command's calls cost (LiteLLM's price table), items the cap cut short included."""
    calls_sent: int = 0
    """Calls this command sent to the provider (response-cache hits are free and not counted)."""
    cost_left_usd: float | None = None
    calls_left: int | None = None
    stopped_by: str | None = None
    items_left: int = 0
    resume: str | None = None
    """The command that resumes the run (None when nothing is left)."""


class RunSummary(BaseModel):
    """What one run did, as ``summary.json`` holds it (read it back with :func:`tribunal.read_run_summary`)."""

    model_config = ConfigDict(extra="forbid")

    format: str = SUMMARY_FORMAT
    command: str
    signature: str
    mlflow_run_id: str | None = None
    calls: int = 0
    spend_usd: float | None = None
    """None when a model of the run has no price in LiteLLM's table."""
    spend: str = ""
    """The spend in words, as the terminal says it."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasks: int = 0
    runaways: int = 0
    wall_seconds: float = 0.0
    items: ItemCounts = Field(default_factory=ItemCounts)
    roles: dict[str, RoleUsage] = Field(default_factory=dict)
    meta: dict[str, float | None] = Field(default_factory=dict)
    spans: dict[str, float | None] = Field(default_factory=dict)
    stopped_by: str | None = None
    """None, or the cap that stopped the run (``--max-cost 0.5``, ``--max-calls 100``)."""
    cap: CapStatus | None = None
    outputs: dict[str, str] = Field(default_factory=dict)
    details: dict[str, JsonValue] = Field(default_factory=dict)

    @field_validator("meta", "spans", mode="before")
    @classmethod
    def _finite(cls, values: object) -> object:
        """NaN and infinities (undefined figures) are stored as None."""
        if not isinstance(values, dict):
            return values
        return {k: None if isinstance(v, float) and not math.isfinite(v) else v for k, v in values.items()}

    @field_validator("details", mode="before")
    @classmethod
    def _finite_details(cls, values: object) -> object:
        return strict_json(values)


def strict_json(value: object) -> object:
    """``value`` with every NaN or infinite float replaced by None, in nested dicts and lists."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): strict_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [strict_json(v) for v in value]
    return value


def role_usage(usage: dict[str, dict[str, int]]) -> dict[str, RoleUsage]:
    """Per ``stage/role`` from a usage meter's summary (:meth:`tribunal.runner.meter.UsageMeter.summary`)."""
    roles = sorted(k for k in usage.get("calls", {}) if "/" in k)

    def get(field: str, role: str) -> int:
        return int((usage.get(field) or {}).get(role, 0))

    return {role: RoleUsage(calls=get("calls", role), cached=get("cached", role), failed=get("failed", role),
                            paid=get("calls", role) - get("cached", role) - get("failed", role),
                            reasks=get("reasks", role), runaways=get("runaways", role),
                            prompt_tokens=get("prompt_tokens", role), completion_tokens=get("completion_tokens", role))
            for role in roles}


class NotARunSummary(ValueError):
    """A file that is not a run summary; ``str(err)`` names it."""


def read_run_summary(path: str | Path) -> RunSummary:
    """The :class:`RunSummary` of a ``summary.json``, or of the output folder that holds one.

    As inspect_ai's ``read_eval_log``: the typed object, not a dict. A file that is not a run
    summary raises :class:`NotARunSummary` naming the file; a missing one, ``FileNotFoundError``.
    """
    path = Path(path)
    if path.is_dir():
        path = path / SUMMARY_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as err:
        raise NotARunSummary(f"{path}: not JSON ({err})") from None
    try:
        return RunSummary.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(map(str, first["loc"]))
        raise NotARunSummary(f"{path}: not a run summary ({where}: {first['msg']})") from None

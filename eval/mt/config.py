"""Typed configuration of ``tribunal mt evaluate`` (a ``--config`` file; CLI flags override it)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from tribunal.eval.tracking.signature import signature
from tribunal.programs.lm import LMSettings
from tribunal.programs.mqm.mmad import MMADConfig

DISPLAY_NAMES = {"mmad": "M-MAD", "gemba-mqm": "GEMBA-MQM", "eaprompt": "EAPrompt"}


class BatchSettings(BaseModel):
    """Batch mode (``--batch``): the providers' batch APIs instead of online calls, at the batch price."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = False
    poll_seconds: float = Field(30.0, gt=0, description="first wait between status checks (grows 1.5x per check)")
    poll_max_seconds: float = Field(600.0, gt=0, description="longest wait between status checks")
    attempts: int = Field(2, ge=1, le=5, description="batches a failed or expired request is sent in before its "
                                                    "item is unscored")
    max_requests: int | None = Field(None, ge=1, description="requests per batch (default: the provider's limit)")


class RouterSettings(BaseModel):
    """Several endpoints of the same model (``--api-base`` repeated) balanced by LiteLLM's Router."""

    model_config = ConfigDict(extra="forbid")

    endpoints: list[str] = []
    strategy: Literal["least-busy", "simple-shuffle"] = "least-busy"
    retries: int = Field(3, ge=0, le=10, description="tries on other endpoints after a failed call")
    cooldown_seconds: float = Field(30.0, ge=0, description="a failed endpoint gets no calls for this long")


class EvaluateConfig(BaseModel):
    """Everything one MT judge run depends on."""

    model_config = ConfigDict(extra="forbid")

    data: Path | None = None
    lp: str
    program: Literal["mmad", "gemba-mqm", "eaprompt"] = "mmad"
    program_file: Path | None = Field(None, description="a tuned export (tribunal export) of `program` to run")
    program_sha256: str | None = Field(None, description="the export's seal; set from program_file")
    mmad: MMADConfig = MMADConfig()
    lm: LMSettings
    role_lms: dict[str, str] = {}
    systems: list[str] | None = None
    limit: int | None = Field(None, ge=1)
    rated_only: bool = False
    concurrency: int = Field(8, ge=1, le=512, description="LM calls in flight at most (items in flight: a few more)")
    processes: int = Field(1, ge=1, le=64, description="worker processes sharing the call slots (HTTP LMs only)")
    fan_out: bool = Field(True, description="run an item's independent calls (M-MAD's stage-1 agents, the "
                                            "debates of different dimensions) concurrently")
    batch: BatchSettings = BatchSettings()
    router: RouterSettings = RouterSettings()
    out: Path = Path("tribunal-out/mt")
    demos: int = Field(2, ge=0, le=8, description="few-shot demos per dimension agent (GEMBA-MQM uses 3)")
    demo_data: Path | None = Field(None, description="TED MQM folder (default: $TRIBUNAL_DATA/mqm-ted)")
    name: str | None = None
    retry_unscored: bool = False

    @property
    def metric_name(self) -> str:
        """The name score files carry: e.g. ``M-MAD``, ``M-MAD-deliberation-no-stage2``."""
        if self.name:
            return self.name
        base = DISPLAY_NAMES[self.program]
        if self.program != "mmad":
            return base
        parts = [base] + ([self.mmad.strategy] if self.mmad.strategy != "consensus" else [])
        return "-".join(parts + [f"no-{s}" for s in self.mmad.ablate])

    def config_signature(self) -> str:
        """Pins what an item's judgment depends on (not the data slice): keys the run journal."""
        fields: dict[str, object] = {"prog": self.program}
        if self.program_sha256:
            fields["tuned"] = self.program_sha256[:12]
        if self.program == "mmad":
            m = self.mmad
            fields |= {"strategy": m.strategy, "rounds": m.rounds, "topic": m.topic,
                       "ablate": ",".join(m.ablate) or "none", "opening": m.opening,
                       "consensus": m.consensus_check, "judge": m.judge_policy}
        fields |= {"lm": self.lm.model, "temp": self.lm.temperature, "max_tokens": self.lm.max_tokens,
                   "roles": ",".join(f"{r}={m}" for r, m in sorted(self.role_lms.items())) or "none",
                   "demos": 3 if self.program == "gemba-mqm" else (self.demos if self.program == "mmad" else 0),
                   "lp": self.lp}
        return signature(fields)


def load_config_file(path: Path) -> dict[str, Any]:
    """A ``.toml`` or ``.json`` config file as a dict (validated later, with the CLI overrides)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".toml":
        return tomllib.loads(text)
    if path.suffix == ".json":
        return json.loads(text)
    raise ValueError(f"{path}: config files are .toml or .json")


def merge(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """Nested merge; ``None`` in ``overrides`` means "not given" and keeps the base value."""
    merged = dict(base)
    for key, value in overrides.items():
        if value is None:
            continue
        if isinstance(value, dict):
            nested = merge(merged.get(key) or {}, value)
            if nested:
                merged[key] = nested
        else:
            merged[key] = value
    return merged

"""Typed configuration of ``tribunal mt evaluate`` (a ``--config`` file; CLI flags override it)."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny, ValidationInfo, field_validator, model_validator

from tribunal.core.judge_sections import judge_settings, sections_read
from tribunal.core.judge_settings import JudgeSettings, changed_settings, settings_label  # noqa: F401  (re-exported)
from tribunal.core.judges import JUDGES, Judge, MTJudgeName
from tribunal.eval.mt.ensemble import SamplingSettings
from tribunal.secrets import secret_values
from tribunal.eval.tracking.run_signatures import MTEvaluateSignature
from tribunal.programs.lm import LMSettings, RoleLM
from tribunal.programs.mqm.segment_inputs import SegmentInputs
from tribunal.eval.tracking.run_names import config_folder, short_lm

THREADED_CONCURRENCY = 512  # --concurrency at most on the threaded path (a thread per call in flight)
from tribunal.programs.lm import endpoint_label, role_lm



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
    program: MTJudgeName = Field(JUDGES.default("mt"), description="an MT judge of the registry (tribunal.core.judges)")
    program_file: Path | None = Field(None, description="a tuned export (tribunal export) of `program` to run")
    program_sha256: str | None = Field(None, description="the export's seal; set from program_file")
    settings: SerializeAsAny[JudgeSettings] | None = Field(
        None, validate_default=True, description="the program's own settings, validated by its registry entry's "
        "model; a config file gives them in the program's section ([mmad], [esa], ...), the command line as -S")
    segment: SegmentInputs = Field(SegmentInputs(), description="the reference and document context the judge "
                                                                "sees (--reference, --context)")
    sampling: SamplingSettings = Field(SamplingSettings(), description="K judgments per item and how they are "
                                                                      "combined (--samples, --combine)")
    lm: LMSettings
    role_lms: dict[str, RoleLM] = Field({}, description="ROLE -> its own model (and endpoint): a model name "
                                                       "or {model, api_base, api_key_env}")

    @model_validator(mode="before")
    @classmethod
    def _sections(cls, data: Any) -> Any:
        return sections_read(data)

    @field_validator("settings", mode="before")
    @classmethod
    def _judge_settings(cls, value: Any, info: ValidationInfo) -> Any:
        program = info.data.get("program")
        return judge_settings(JUDGES.find(program) if isinstance(program, str) else None, value)

    @field_validator("role_lms", mode="before")
    @classmethod
    def _role_lms(cls, value: Any) -> Any:
        return {role: role_lm(v) for role, v in value.items()} if isinstance(value, dict) else value
    systems: list[str] | None = None
    limit: int | None = Field(None, ge=1)
    rated_only: bool = False
    concurrency: int = Field(8, ge=1, le=4096, description="LM calls in flight at most (items in flight: a few "
                                                         "more); up to 512 with judging=threads, 4096 with async")
    judging: Literal["threads", "async"] = Field(
        "threads", description="how items are judged: threads (a thread per item and per fanned-out call) or "
                               "async (coroutines on one event loop: a call in flight costs a task and a socket; "
                               "every MT judge)")
    processes: int = Field(1, ge=1, le=64, description="worker processes sharing the call slots (HTTP LMs only)")
    fan_out: bool = Field(True, description="run an item's independent calls (M-MAD's stage-1 agents, the "
                                            "debates of different dimensions) concurrently")
    batch: BatchSettings = BatchSettings()
    router: RouterSettings = RouterSettings()
    out: Path | None = Field(None, description="output folder (default: tribunal-out/mt/<configuration>, see output_dir)")
    demos: int | None = Field(None, ge=0, le=8, description="few-shot demos per M-MAD stage-1 agent (default: "
                                                           "the preset's, 4 for paper, 2 for lean; GEMBA-style "
                                                           "judges use GEMBA's 3)")
    demo_data: Path | None = Field(None, description="TED MQM folder (default: $TRIBUNAL_DATA/mqm-ted)")
    name: str | None = Field(None, description="metric name in the score files (letters, digits, . _ + -)")
    retry_unscored: bool = False
    strict: bool = Field(False, description="no fallbacks: a role that stays unusable after its re-asks unscores "
                                            "its item (default: the program's fallback, the item marked degraded)")
    degraded: Literal["include", "exclude"] = Field(
        "include", description="whether degraded items count in the score files and the meta-evaluation "
                               "(they are journaled either way)")

    @model_validator(mode="after")
    def _threads_bounded(self) -> "EvaluateConfig":
        if self.judging == "threads" and self.concurrency > THREADED_CONCURRENCY:
            raise ValueError(f"concurrency {self.concurrency}: at most {THREADED_CONCURRENCY} with judging=threads "
                             "(a thread per call); judging=async takes up to 4096")
        if self.judging == "async" and self.batch.enabled:
            raise ValueError("judging=async sends its calls itself: not with batch")
        return self

    @field_validator("name")
    @classmethod
    def _file_safe_name(cls, value: str | None) -> str | None:
        """The name becomes file names and the MLflow run name: no path, no credential."""
        if value is None:
            return value
        if any(secret in value for secret in secret_values()):
            raise ValueError("holds a credential from the environment; choose another name")
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,99}", value):
            raise ValueError("use at most 100 letters, digits and . _ + - (it names the score files)")
        return value

    @property
    def demo_count(self) -> int:
        """Demos the program holds: a tuned export's own (all predictors), else per agent: ``demos`` or the
        program's default (the M-MAD preset's, GEMBA's 3)."""
        if self.program_file is not None:
            state = json.loads(Path(self.program_file).read_text(encoding="utf-8")).get("state", {})
            return sum(len(p.get("demos") or []) for p in state.values() if isinstance(p, dict))
        plan = self.judge.demo_plan()
        return plan.count(self.program_settings(), self.demos) if plan else 0

    @property
    def metric_name(self) -> str:
        """The name score files carry: e.g. ``M-MAD``, ``M-MAD-lean``, ``M-MAD-deliberation-no-stage2``,
        ``GEMBA-MQM-tuned-1a2b3c4d``, ``M-MAD-ref-ctx2``, ``GEMBA-MQM-k5-trimmed``."""
        if self.name:
            return self.name
        base = self.judge.title
        tuned = self.segment.name_parts() + self.sampling.name_parts()
        tuned += [f"tuned-{self.program_sha256[:8]}"] if self.program_sha256 else []
        own = self.settings.name_parts() if self.settings is not None else []
        return "-".join([base, *own, *tuned])

    @property
    def output_dir(self) -> Path:
        """``out``, else a folder of this configuration's own under ``tribunal-out/mt`` (never shared)."""
        if self.out is not None:
            return self.out

        return config_folder("tribunal-out/mt", f"{self.metric_name}_{self.lp}_{short_lm(self.lm.model)}",
                             self.config_signature())

    @property
    def judge(self) -> Judge:
        """The registry entry of the chosen program."""
        return JUDGES.get(self.program)

    def program_settings(self) -> JudgeSettings | None:
        """The settings of the chosen program (:attr:`settings`), None for one without."""
        return self.settings

    def config_signature(self) -> str:
        """Pins what an item's judgment depends on (not the data slice): keys the run journal."""
        return str(self.signature())

    def signature(self, data: str | None = None, degraded: str | None = None) -> MTEvaluateSignature:
        """The typed signature: :meth:`config_signature`'s fields, and the data slice and left-out rule if given."""
        fields: dict[str, object] = {"prog": self.program}
        if self.program_sha256:
            fields["tuned"] = self.program_sha256[:12]
        judge_fields = self.settings.signature_fields() if self.settings is not None else {}
        fields |= {"lm": self.lm.model, "endpoint": endpoint_label(self.lm.api_base),
                   "temp": self.lm.temperature, "max_tokens": self.lm.max_tokens, "reasks": self.lm.reasks,
                   "roles": ",".join(f"{r}={m.label()}" for r, m in sorted(self.role_lms.items())) or "none",
                   "demos": self.demo_count,
                   "ref": self.segment.reference, "ctx": self.segment.context or None,
                   "samples": self.sampling.samples if self.sampling.used else None,
                   "combine": self.sampling.combine if self.sampling.used else None,
                   "strict": "yes" if self.strict else None, "lp": self.lp, "data": data, "degraded": degraded}
        return MTEvaluateSignature(**fields, judge=judge_fields)


def load_config_file(path: Path) -> dict[str, Any]:
    """A ``.toml`` or ``.json`` config file as a dict (validated later, with the CLI overrides)."""
    if path.suffix not in (".toml", ".json"):
        raise ValueError(f"{path}: config files are .toml or .json")
    text = path.read_text(encoding="utf-8")
    try:
        settings = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    except ValueError as err:  # JSONDecodeError and TOMLDecodeError
        raise ValueError(f"{path}: not valid {path.suffix[1:].upper()}: {err}") from None
    if not isinstance(settings, dict):
        raise ValueError(f"{path}: a config file holds one object of settings (e.g. {{\"lp\": \"zh-en\"}}), "
                         f"not a {type(settings).__name__}")
    return settings


def merge(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """Nested merge; ``None`` in ``overrides`` means "not given" and keeps the base value."""
    merged = dict(base)
    for key, value in overrides.items():
        if value is None:
            continue
        if isinstance(value, dict):
            base_value = merged.get(key)
            nested = merge(base_value if isinstance(base_value, dict) else {}, value)
            if nested:
                merged[key] = nested
        else:
            merged[key] = value
    return merged

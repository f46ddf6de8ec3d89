"""What ``tribunal optimize`` is asked to do (:class:`OptimizeRequest`) and what it did (:class:`OptimizeResult`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tribunal.optimizers.dev_eval import DevScore
from tribunal.optimizers.equiv_metric import EquivalenceMetric
from tribunal.optimizers.mt_metric import MQMMetric
from tribunal.optimizers.objective_report import ObjectiveScores

METRICS = {"mt": MQMMetric, "equiv": EquivalenceMetric}
"""The item metric of each kind of training data."""


class OptimizeRequest(BaseModel):
    """What ``tribunal optimize`` was asked to do."""

    model_config = ConfigDict(extra="forbid")

    program: str
    optimizer: str
    settings: dict[str, str] = Field(default_factory=dict, description="--set KEY=VALUE program settings.")
    train: str
    dev: str
    lm: str
    api_base: str | None = None
    api_key_env: str | None = Field(None, description="Environment variable holding the API key (its name only).")
    teacher_lm: str | None = None
    prompt_lm: str | None = None
    budget: int | None = Field(None, description="Default: the optimizer's own default.")
    seed: int = 0
    threads: int = Field(4, ge=1)
    cache: bool = Field(True, description="Reuse DSPy's response cache (answers from it cost nothing).")
    reasks: int = Field(2, ge=0, le=10, description="Times an unusable answer is asked again (--reasks).")
    max_tokens: int | None = Field(None, gt=0, description="Most tokens an answer may have (every role).")
    timeout: float | None = Field(None, gt=0, description="Seconds to wait for an answer (every role).")
    rpm: float | None = Field(None, gt=0, allow_inf_nan=False, description="Requests per minute the provider "
                                                                         "allows each model (--rpm): paced to it.")
    tpm: float | None = Field(None, gt=0, allow_inf_nan=False, description="Tokens per minute the provider "
                                                                         "allows each model (--tpm): paced to it.")
    demos: int = Field(4, ge=0, description="Demo cap for optimizers whose budget is not demos.")
    objective: str = Field("item", description="What candidates are chosen by: item, seg-acc-eq, kendall, pearson, "
                                               "balanced-accuracy, f1-different or a mix NAME=W,NAME=W.")
    out: Path | None = None


@dataclass
class OptimizeResult:
    """What one ``tribunal optimize`` job did: its export, run, dev scores and how the tuned program was chosen."""

    out: Path
    run_id: str | None
    signature: str
    untuned: DevScore
    tuned: DevScore
    trials: int
    program: Any = None
    """The tuned program itself (the export holds its state)."""
    model: Any = None
    """The registered MLflow model (:class:`~tribunal.optimizers.judge_model_log.LoggedJudge`), if tracked."""
    skipped: dict = field(default_factory=dict)
    """``{"train": Counter, "dev": Counter}``: items of an ``mlflow:`` slice left out, by reason."""
    objective: str = "item"
    scores: dict[str, ObjectiveScores] = field(default_factory=dict)
    """``{"untuned": ..., "tuned": ...}``: objective and item metric on dev, with bootstrap intervals."""
    selection: Any = None
    """How the objective chose among the optimizer's candidates (``objective_selection.Selection``)."""
    rejected: DevScore | None = None
    """The tuned program's dev score when it was too often unusable and the untuned one was kept."""
    rejected_reason: str | None = None
    stopped_by: str | None = None
    """The spending cap that stopped the optimizer (the export is then the best candidate scored before it)."""
    cap: Any = None
    """What the cap allowed and left (:class:`~tribunal.core.run_summary.CapStatus`), with a cap."""
    run_summary: Any = None
    """The run's :class:`~tribunal.core.run_summary.RunSummary`, as ``summary.json`` beside the export holds it."""

"""How ``tribunal hyp divergence`` matches runs and tests their extra divergence."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tribunal.eval.hyp.joint_permutation import DEFAULT_MAX_STATES, DEFAULT_SAMPLES


class DivergenceSettings(BaseModel):
    """How runs are matched and how extra divergence is tested."""

    model_config = ConfigDict(extra="forbid")

    matching: Literal["lineage", "slot"] = "lineage"
    alternative: Literal["two-sided", "greater"] = "two-sided"
    max_states: int = Field(DEFAULT_MAX_STATES, ge=1, description="Largest exact convolution step before sampling.")
    samples: int = Field(DEFAULT_SAMPLES, ge=1, description="Joint splits drawn by the sampling fallback.")
    seed: int = 0
    frame_judge: bool = Field(True, description="Give the LLM judge each instance's question and finding.")

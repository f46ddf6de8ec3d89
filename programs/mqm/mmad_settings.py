"""M-MAD's settings (:class:`MMADConfig`): every switch of the program, the run's names and signature fields.

A preset (:mod:`tribunal.programs.mqm.presets`) fills the switches not given. The metric name adds the
preset (unless ``paper``), the strategy (unless ``consensus``) and ``no-<stage>`` per ablated stage
(``M-MAD-lean``, ``M-MAD-deliberation-no-stage2``); the run signature writes ``preset``, ``strategy``,
``rounds``, ``topic``, ``ablate`` and the switches that differ from the preset (``tweaks``), as it always has,
so journals of earlier runs resume.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer, model_validator

from tribunal.core.judge_settings import JudgeSettings
from tribunal.programs.mqm.presets import tweaks, with_preset

Stage = Literal["stage1", "stage2", "stage3"]


class MMADConfig(JudgeSettings):
    """Every switch of an M-MAD program (part of the run's signature); unset switches come from ``preset``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    preset: Literal["paper", "lean"] = Field("paper", description="the protocol: paper (the published one) or "
                                                                  "lean (fewer calls); fills the switches below")
    strategy: str = Field("consensus", description="the debate: consensus | deliberation | interactive-review | "
                                                   "consultancy-review")
    rounds: int = Field(3, ge=1, le=10, description="most debate rounds")
    topic: Literal["severity", "category", "free"] = Field("severity", description="what a debate argues")
    ablate: tuple[Stage, ...] = Field((), description="stages left out (the paper's ablations)")
    assessors: Literal["guideline", "brief"] = Field("guideline", description="stage-1 agents' instructions")
    debated: Literal["major", "any"] = Field("major", description="which dimensions are debated")
    debaters: Literal["minor-leaning", "free"] = Field("minor-leaning", description="how the debaters argue")
    opening: Literal["downgraded", "stage1", "debater"] = Field("downgraded", description="a debate's opening")
    consensus_check: Literal["separate", "inline"] = Field("separate", description="how consensus is read")
    judge: Literal["most-severe", "most-fitting"] = Field("most-severe", description="the final judge's rule")
    judge_policy: Literal["if-stage1-errors", "if-errors", "always"] = Field(
        "if-stage1-errors", description="when the final judge is called")
    demo_rule: Literal["fixed", "seeded"] = Field("fixed", description="which TED demos the stage-1 agents see")

    @model_validator(mode="before")
    @classmethod
    def _from_preset(cls, data: Any) -> Any:
        return with_preset(data) if isinstance(data, dict) else data

    @model_validator(mode="after")
    def _coherent(self) -> "MMADConfig":
        if self.debaters == "minor-leaning":
            if self.opening != "downgraded":
                raise ValueError(f"opening={self.opening} needs debaters=free, e.g. preset=lean (the minor-leaning "
                                 "debaters open with the stage-1 annotations and their downgrade)")
            if self.topic != "severity":
                raise ValueError(f"topic={self.topic} needs debaters=free, e.g. preset=lean (the minor-leaning "
                                 "debaters debate severity)")
            if self.strategy == "consultancy-review":
                raise ValueError("consultancy-review has a single debater: use preset=lean (or debaters=free)")
            if self.strategy == "consensus" and self.consensus_check != "separate":
                raise ValueError("consensus_check=inline needs debaters=free, e.g. preset=lean (the minor-leaning "
                                 "debaters give no agreement flag; consensus is the separate check)")
        elif self.opening == "downgraded":
            raise ValueError("opening=downgraded needs debaters=minor-leaning")
        return self

    @model_serializer(mode="wrap")
    def _always_name_preset(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # Exports and logged configs drop defaults; the preset must survive a change of default.
        return {"preset": self.preset, **handler(self)}

    def name_parts(self) -> list[str]:
        """The preset unless ``paper``, the strategy unless ``consensus``, ``no-<stage>`` per ablated stage."""
        parts = [self.preset] if self.preset != "paper" else []
        parts += [self.strategy] if self.strategy != "consensus" else []
        return parts + [f"no-{stage}" for stage in self.ablate]

    def signature_fields(self) -> dict[str, str]:
        """``preset``, ``strategy``, ``rounds``, ``topic``, ``ablate`` and ``tweaks`` (switches off the preset's)."""
        changed = tweaks(self.preset, self.model_dump())
        return {"preset": self.preset, "strategy": self.strategy, "rounds": str(self.rounds), "topic": self.topic,
                "ablate": ",".join(self.ablate) or "none",
                "tweaks": ",".join(f"{k}={v}" for k, v in sorted(changed.items())) or "none"}

    def run_label_parts(self) -> list[str]:
        """The debate in a run name: its strategy, ``r<rounds>`` and the topic unless ``severity``."""
        return [self.strategy, f"r{self.rounds}"] + ([self.topic] if self.topic != "severity" else [])

    def debate_rounds(self) -> int:
        """The most rounds of a debate (``rounds``)."""
        return self.rounds

"""The choices a span measure makes, as one typed, signed settings object.

Every choice the papers leave open is a field here, so a figure can always be traced to its
settings through :meth:`SpanOptions.signature` (``m:mpp|match:1-1|assign:optimal|avg:micro|...``),
in the manner of sacrebleu's signature strings.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from tribunal.eval.tracking.run_signatures import SpanSignature

Measure = Literal["em", "mp", "mpp", "wmt25"]
Matching = Literal["one-to-one", "many-to-many"]
Assignment = Literal["optimal", "greedy"]
Averaging = Literal["micro", "macro"]
SideChoice = Literal["target", "source", "both"]

MEASURES: tuple[str, ...] = ("em", "mp", "mpp", "wmt25")
VERSION = "1"


class SpanOptions(BaseModel):
    """How predicted spans are compared with gold spans (defaults: micro MPP, optimal 1-1, target side)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    measure: Measure = "mpp"
    matching: Matching = "one-to-one"
    assignment: Assignment = "optimal"
    averaging: Averaging = "micro"
    severity_penalty: float = Field(0.0, ge=0.0, le=1.0)
    severity_weights: dict[str, float] | None = None
    side: SideChoice = "target"

    @field_validator("severity_weights")
    @classmethod
    def _weights(cls, value: dict[str, float] | None) -> dict[str, float] | None:
        if value is None:
            return None
        if any(w < 0 for w in value.values()):
            raise ValueError("severity weights must be >= 0")
        return {k.strip().lower(): float(w) for k, w in value.items()}

    def weight(self, severity: str) -> float:
        """A span's weight: 1 without weights; a severity the weights do not name weighs 1."""
        if self.severity_weights is None:
            return 1.0
        return self.severity_weights.get(severity, 1.0)

    def signature(self) -> str:
        weights = ("none" if self.severity_weights is None
                   else ",".join(f"{k}={v:g}" for k, v in sorted(self.severity_weights.items())))
        match = "1-1" if self.matching == "one-to-one" else "n-n"
        assign = self.assignment if self.matching == "one-to-one" else "none"
        return str(SpanSignature(m=self.measure, match=match, assign=assign, avg=self.averaging,
                                 sevpen=f"{self.severity_penalty:g}", sevw=weights, side=self.side, v=VERSION))


def parse_weights(text: str) -> dict[str, float]:
    """``"minor=1,major=5"`` -> ``{"minor": 1.0, "major": 5.0}``; raises ValueError naming the bad part."""
    weights = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, sep, value = part.partition("=")
        try:
            weights[name.strip().lower()] = float(value)
        except ValueError:
            raise ValueError(f"{part!r} is not SEVERITY=NUMBER") from None
        if not sep or not name.strip():
            raise ValueError(f"{part!r} is not SEVERITY=NUMBER")
    if not weights:
        raise ValueError("no SEVERITY=NUMBER given")
    return weights

"""The choices a span measure makes, as one typed, signed settings object.

Every choice the papers leave open is a field here, so a figure can always be traced to its
settings through :meth:`SpanOptions.signature` (``m:mpp|match:1-1|assign:optimal|avg:micro|...``),
in the manner of sacrebleu's signature strings.

The options and their limits are those of the authors' code (sted19/span-mt-metrics-eval,
``compute(measure, matching, matching_algorithm, averaging, severity_penalty, severity_weights)``):
severity weights exist for ``mpp`` only and cannot be combined with a severity penalty; every span
scored with weights needs a severity the weights name, and every span scored with a penalty needs a
severity (:func:`check_severities`). Signature version 2: the measures as that code computes them
(version 1 was tribunal's earlier reading of the paper).
"""

from __future__ import annotations

from typing import Iterable, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from tribunal.core.spans import Span
from tribunal.eval.tracking.run_signatures import SpanSignature

Measure = Literal["em", "mp", "mpp", "wmt25"]
Matching = Literal["one-to-one", "many-to-many"]
Assignment = Literal["optimal", "greedy"]
Averaging = Literal["micro", "macro"]
SideChoice = Literal["target", "source", "both"]

MEASURES: tuple[str, ...] = ("em", "mp", "mpp", "wmt25")
VERSION = "2"


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
        weights = {k.strip().lower(): float(w) for k, w in value.items()}
        if "" in weights or len(weights) != len(value):
            raise ValueError("severity weights need distinct, non-empty severity names")
        if any(w != w or w == float("inf") for w in weights.values()):
            raise ValueError("severity weights must be finite")
        return weights

    @model_validator(mode="after")
    def _weights_only_for_mpp(self) -> "SpanOptions":
        if self.severity_weights is not None and self.measure != "mpp":
            raise ValueError("severity weights are defined for the mpp measure only (as in the authors' code)")
        if self.severity_weights is not None and self.severity_penalty > 0:
            raise ValueError("severity weights cannot be combined with a severity penalty (as in the authors' code)")
        return self

    def weight(self, severity: str) -> float:
        """A span's weight (its severity mass): 1 without weights; the weight of its severity with them."""
        if self.severity_weights is None:
            return 1.0
        return self.severity_weights[severity]

    def signature(self) -> str:
        weights = ("none" if self.severity_weights is None
                   else ",".join(f"{k}={v:g}" for k, v in sorted(self.severity_weights.items())))
        match = "1-1" if self.matching == "one-to-one" else "n-n"
        assign = self.assignment if self.matching == "one-to-one" else "none"
        return str(SpanSignature(m=self.measure, match=match, assign=assign, avg=self.averaging,
                                 sevpen=f"{self.severity_penalty:g}", sevw=weights, side=self.side, v=VERSION))


def check_severities(spans: Iterable[Span], options: SpanOptions, where: str = "") -> None:
    """Raise ValueError (naming ``where`` and the span) if a span lacks the severity ``options`` need."""
    for s in spans:
        if options.severity_weights is not None and s.severity not in options.severity_weights:
            named = f"severity {s.severity!r}" if s.severity else "no severity"
            raise ValueError(f"{where}span [{s.start},{s.end}) has {named}, which --severity-weights does not name")
        if options.severity_penalty > 0 and not s.severity:
            raise ValueError(f"{where}span [{s.start},{s.end}) has no severity, which --severity-penalty needs")


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

"""Typed MQM error annotations: what every MT judge signature outputs (parsed by DSPy, never by regex).

A span is an exact substring of the translation, or of the source when ``is_source_error``.
Each dimension narrows ``subcategory`` to its own closed set.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Dimension = Literal["accuracy", "fluency", "style", "terminology"]
DIMENSIONS: tuple[str, ...] = ("accuracy", "fluency", "style", "terminology")
Severity = Literal["minor", "major"]

AccuracySubcategory = Literal["mistranslation", "addition", "omission", "untranslated text", "non-translation"]
FluencySubcategory = Literal["grammar", "spelling", "punctuation", "register", "inconsistency", "character encoding"]
StyleSubcategory = Literal["awkward", "unidiomatic", "inconsistent style"]
TerminologySubcategory = Literal["inappropriate for context", "inconsistent use of terminology"]
NON_TRANSLATION = "non-translation"
"""A translation too garbled or unrelated to the source to name distinct errors: one error spanning it all."""


class MQMError(BaseModel):
    """One error found by a dimension agent."""

    model_config = ConfigDict(extra="forbid")

    span: str = Field(description="exact substring of the translation (of the source if is_source_error)")
    subcategory: str
    severity: Severity
    is_source_error: bool = False


class AccuracyError(MQMError):
    subcategory: AccuracySubcategory


class FluencyError(MQMError):
    subcategory: FluencySubcategory


class StyleError(MQMError):
    subcategory: StyleSubcategory


class TerminologyError(MQMError):
    subcategory: TerminologySubcategory


class GuidedFluencyError(MQMError):
    """A fluency error under the shared MQM guideline (the paper preset): non-translation allowed."""

    subcategory: Literal[FluencySubcategory, "non-translation"]


class GuidedStyleError(MQMError):
    """A style error under the shared MQM guideline: "awkward" is the only subcategory."""

    subcategory: Literal["awkward", "non-translation"]


class GuidedTerminologyError(MQMError):
    """A terminology error under the shared MQM guideline: non-translation allowed."""

    subcategory: Literal[TerminologySubcategory, "non-translation"]


class DimensionError(MQMError):
    """An error tagged with its MQM dimension: what debaters, reviewers and the final judge exchange."""

    dimension: Dimension


GUIDED_ERRORS: dict[str, type[MQMError]] = {
    "accuracy": AccuracyError, "fluency": GuidedFluencyError, "style": GuidedStyleError,
    "terminology": GuidedTerminologyError,
}
"""Each dimension's error type under the shared MQM guideline (every agent may report non-translation)."""

GembaSeverity = Literal["critical", "major", "minor"]
GembaCategory = Literal["accuracy", "fluency", "style", "terminology", "non-translation", "other"]


class GembaError(BaseModel):
    """One error in GEMBA-MQM's scheme (critical / major / minor)."""

    model_config = ConfigDict(extra="forbid")

    span: str = Field(description="exact substring of the translation (of the source if is_source_error)")
    category: GembaCategory
    subcategory: str = ""
    severity: GembaSeverity
    is_source_error: bool = False


def tag(errors: list[MQMError], dimension: str) -> list[DimensionError]:
    """Attach a dimension to a dimension agent's errors."""
    return [DimensionError(dimension=dimension, **e.model_dump()) for e in errors]

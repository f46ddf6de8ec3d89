"""The published final judge's merge rule, enforced on its answer (pure functions).

The paper preset's judge (``signatures/mqm/merging_judge.py``) is told the rule; an LM that breaks
it would count one span twice, so its answer is normalised the same way:
- a non-translation error replaces every other error: one, spanning the entire translation;
- errors on the same span (same text, same side) keep only the most severe, ties broken by the
  typology order accuracy > fluency > terminology > style. Overlapping but different spans are
  the judge's call and are left as they are.
"""

from __future__ import annotations

from typing import Iterable

from tribunal.signatures.mqm.errors import NON_TRANSLATION, DimensionError

TYPOLOGY_ORDER: tuple[str, ...] = ("accuracy", "fluency", "terminology", "style")
SEVERITY_RANK = {"major": 0, "minor": 1}


def non_translation(errors: Iterable[DimensionError], translation: str) -> DimensionError | None:
    """The single whole-segment non-translation error if any error declares one, else None."""
    for error in errors:
        if error.subcategory == NON_TRANSLATION:
            return error.model_copy(update={"span": translation, "severity": "major", "is_source_error": False})
    return None


def _precedence(error: DimensionError) -> tuple[int, int]:
    return SEVERITY_RANK[error.severity], TYPOLOGY_ORDER.index(error.dimension)


def merge_most_severe(errors: list[DimensionError], translation: str) -> list[DimensionError]:
    """``errors`` with the merge rule applied, in first-seen order of their spans."""
    declared = non_translation(errors, translation)
    if declared is not None:
        return [declared]
    kept: dict[tuple[str, bool], DimensionError] = {}
    for error in errors:
        key = (error.span, error.is_source_error)
        if key not in kept or _precedence(error) < _precedence(kept[key]):
            kept[key] = error
    return list(kept.values())

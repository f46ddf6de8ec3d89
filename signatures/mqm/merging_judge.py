"""Stage 3 of M-MAD as published (the paper preset): the judge merges the four dimensions' annotations.

For a span with several errors it keeps the most severe, ties broken by the typology order
(accuracy, fluency, terminology, style); it may instead declare one non-translation spanning the
whole segment. (``programs/mqm/merging.py`` enforces the same rule on its answer.)
"""

from __future__ import annotations

import dspy

from tribunal.signatures.mqm.errors import DimensionError


class MergingJudgment(dspy.Signature):
    """You are a judge for the translation error annotations, given the translation pair and annotations from
    previous rounds. Your task is to integrate them and remove repeated annotations if any, where if a single
    error span contains multiple errors, indicate only the one that is the most severe, and if some errors have
    the same severity, choose the first matching category listed in the error typology (accuracy, then fluency,
    then terminology, then style). But please note this rule is only applied when a single error span contains
    multiple errors. However, if it is not possible to reliably identify distinct errors because the translation
    is too badly garbled or is unrelated to the source, then mark a special category, called non-translation,
    that spans the entire segment. There can be at most one non-translation error per segment, and it should
    span the entire segment. No other errors should be identified if non-translation is selected.
    In the analysis, first judge whether it is a non-translation error and, if so, explain why; if not, explain
    how you applied the rule for a span with several errors. Tag a non-translation error with dimension
    accuracy, subcategory "non-translation", severity major and the entire translation as its span."""

    source_lang: str = dspy.InputField()
    target_lang: str = dspy.InputField()
    source: str = dspy.InputField()
    translation: str = dspy.InputField()
    accuracy_annotations: list[DimensionError] = dspy.InputField(desc="the accuracy expert's annotations")
    fluency_annotations: list[DimensionError] = dspy.InputField(desc="the fluency expert's annotations")
    terminology_annotations: list[DimensionError] = dspy.InputField(desc="the terminology expert's annotations")
    style_annotations: list[DimensionError] = dspy.InputField(desc="the style expert's annotations")
    analysis: str = dspy.OutputField()
    errors: list[DimensionError] = dspy.OutputField(desc="the final annotations")

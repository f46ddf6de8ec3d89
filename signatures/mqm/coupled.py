"""M-MAD without stage 1: one coupled MQM template covering all four dimensions at once."""

from __future__ import annotations

import dspy

from tribunal.signatures.mqm.errors import DimensionError


class CoupledAssessment(dspy.Signature):
    """You are an MQM annotator. Identify every error in the translation across all four MQM dimensions:
    accuracy (mistranslation, addition, omission, untranslated text, non-translation), fluency (grammar,
    spelling, punctuation, register, inconsistency, character encoding), style (awkward, unidiomatic,
    inconsistent style) and terminology (inappropriate for context, inconsistent use of terminology).
    Tag each error with its dimension and subcategory; severity is major when meaning or comprehension
    suffers, minor otherwise. Give spans as exact substrings of the translation (of the source, with
    is_source_error set, for omissions). Return an empty list if the translation is perfect."""

    source_lang: str = dspy.InputField()
    target_lang: str = dspy.InputField()
    source: str = dspy.InputField()
    translation: str = dspy.InputField()
    rationale: str = dspy.OutputField(desc="brief reasoning; empty when there is nothing to report")
    errors: list[DimensionError] = dspy.OutputField()

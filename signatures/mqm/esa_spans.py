"""GEMBA-ESA (Kocmi & Federmann, 2024), step 1: the error spans, each minor or major.

ESA keeps MQM's error categories but only two severities; a span is an exact substring of the
translation (of the source, with ``is_source_error``, for an omission).
"""

from __future__ import annotations

import dspy

from tribunal.signatures.mqm.errors import GembaError, Severity


class ESAError(GembaError):
    """One error span in ESA's scheme: GEMBA's categories, severity minor or major only."""

    severity: Severity


class ESASpans(dspy.Signature):
    """Your task is to identify machine translation errors and assess the quality of the translation.
    Compare the translation with the source and mark every error span. Give each span's category:
    accuracy (addition, mistranslation, omission, untranslated text), fluency (character encoding,
    grammar, inconsistency, punctuation, register, spelling), style (awkward), terminology
    (inappropriate for context, inconsistent use), non-translation or other. Each error is major or
    minor: major errors disrupt the flow and make the text difficult or impossible to understand;
    minor errors do not disrupt the flow significantly and what the text is trying to say is still
    understandable. Give spans as exact substrings of the translation. Return an empty list when the
    translation has no error."""

    source_lang: str = dspy.InputField()
    target_lang: str = dspy.InputField()
    source: str = dspy.InputField()
    translation: str = dspy.InputField()
    errors: list[ESAError] = dspy.OutputField()

"""Stage 1 of M-MAD: one assessor per MQM dimension, each with its own instruction and subcategories."""

from __future__ import annotations

import dspy

from tribunal.signatures.mqm.errors import AccuracyError, FluencyError, StyleError, TerminologyError


class _DimensionInputs(dspy.Signature):
    """Shared inputs of the dimension assessors (the instruction is each subclass's docstring)."""

    source_lang: str = dspy.InputField()
    target_lang: str = dspy.InputField()
    source: str = dspy.InputField()
    translation: str = dspy.InputField()
    rationale: str = dspy.OutputField(desc="brief reasoning; empty when there is nothing to report")


class AccuracyAssessment(_DimensionInputs):
    """You are an MQM annotator for the ACCURACY dimension only.
    Compare the translation with the source and list every accuracy error: mistranslation (meaning changed),
    addition (content not in the source), omission (source content missing), untranslated text (source words
    left as is), non-translation (the output is not a translation of the source at all).
    Major errors change or lose meaning a reader would rely on; minor errors are slight deviations.
    Give each error's span as an exact substring of the translation; for an omission, mark the source span
    and set is_source_error. Ignore fluency, style and terminology. Return an empty list if there is none."""

    errors: list[AccuracyError] = dspy.OutputField()


class FluencyAssessment(_DimensionInputs):
    """You are an MQM annotator for the FLUENCY dimension only.
    Read the translation as a text in the target language and list every fluency error: grammar, spelling,
    punctuation, register (wrong level of formality), inconsistency (within the text), character encoding.
    Major errors hinder understanding; minor errors are noticeable but harmless. Give each error's span as
    an exact substring of the translation. Ignore accuracy, style and terminology. Return an empty list if
    there is none."""

    errors: list[FluencyError] = dspy.OutputField()


class StyleAssessment(_DimensionInputs):
    """You are an MQM annotator for the STYLE dimension only.
    List every style error in the translation: awkward (correct but clumsy), unidiomatic (not how a native
    writer would put it), inconsistent style. Major errors make the text hard to read; minor errors are
    stylistic blemishes. Give each error's span as an exact substring of the translation. Ignore accuracy,
    fluency and terminology. Return an empty list if there is none."""

    errors: list[StyleError] = dspy.OutputField()


class TerminologyAssessment(_DimensionInputs):
    """You are an MQM annotator for the TERMINOLOGY dimension only.
    List every terminology error in the translation: a term inappropriate for the domain or context, or a
    term translated inconsistently. Major errors mislead a domain reader; minor errors are imprecise but
    understandable. Give each error's span as an exact substring of the translation. Ignore accuracy,
    fluency and style. Return an empty list if there is none."""

    errors: list[TerminologyError] = dspy.OutputField()


ASSESSORS: dict[str, type[dspy.Signature]] = {
    "accuracy": AccuracyAssessment,
    "fluency": FluencyAssessment,
    "style": StyleAssessment,
    "terminology": TerminologyAssessment,
}

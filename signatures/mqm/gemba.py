"""GEMBA-MQM (Kocmi & Federmann, 2023): one coupled MQM prompt with critical / major / minor."""

from __future__ import annotations

import dspy

from tribunal.signatures.mqm.errors import GembaError


class GembaMQM(dspy.Signature):
    """You are an annotator for the quality of machine translation. Your task is to identify errors and
    assess the quality of the translation. Based on the source segment and machine translation, identify
    error types in the translation and classify them. The categories of errors are: accuracy (addition,
    mistranslation, omission, untranslated text), fluency (character encoding, grammar, inconsistency,
    punctuation, register, spelling), style (awkward), terminology (inappropriate for context,
    inconsistent use), non-translation, other. Each error is classified as one of three categories:
    critical, major, and minor. Critical errors inhibit comprehension of the text. Major errors disrupt
    the flow, but what the text is trying to say is still understandable. Minor errors are technically
    errors, but do not disrupt the flow or hinder comprehension. Give spans as exact substrings of the
    translation. Return an empty list for a perfect translation."""

    source_lang: str = dspy.InputField()
    target_lang: str = dspy.InputField()
    source: str = dspy.InputField()
    translation: str = dspy.InputField()
    errors: list[GembaError] = dspy.OutputField()

"""MQM-APE (Lu et al., COLING 2025): the automatic post-editor fixes one annotated error."""

from __future__ import annotations

import dspy

from tribunal.signatures.mqm.errors import GembaError


class PostEdit(dspy.Signature):
    """You are a post-editor of machine translation. Post-edit the translation to fix the one
    identified error, and only that error: change as little as needed and leave the rest of the
    translation as it is. Output the whole corrected translation, without explanations."""

    source_lang: str = dspy.InputField()
    target_lang: str = dspy.InputField()
    source: str = dspy.InputField()
    translation: str = dspy.InputField()
    error: GembaError = dspy.InputField(desc="the error to fix (its span, category and severity)")
    post_edit: str = dspy.OutputField(desc="the corrected translation")

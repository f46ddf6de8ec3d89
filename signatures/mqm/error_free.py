"""Detection of error-free segments (WMT26 subtask 3): is this translation error-free?"""

from __future__ import annotations

import dspy


class ErrorFree(dspy.Signature):
    """Decide whether the translation of the source is error-free: it needs no correction to be
    understood fluently, is factually consistent with the source, and has no linguistic issue of
    any kind, style, register and locale conventions included. A single error of any severity,
    however minor, means it is not error-free."""

    source_lang: str = dspy.InputField()
    target_lang: str = dspy.InputField()
    source: str = dspy.InputField()
    translation: str = dspy.InputField()
    error_free: bool = dspy.OutputField(desc="True only if the translation has no error at all")

"""EAPrompt (Lu et al., 2023): error analysis first, then the counts of major and minor errors."""

from __future__ import annotations

import dspy


class ErrorAnalysis(dspy.Signature):
    """Analyse the translation against the source. First write an error analysis that lists each error
    with the words it concerns and explains whether it is major (changes or obscures the meaning) or
    minor (imperfect but does not hinder understanding). Then count the major and the minor errors you
    identified in the analysis."""

    source_lang: str = dspy.InputField()
    target_lang: str = dspy.InputField()
    source: str = dspy.InputField()
    translation: str = dspy.InputField()
    analysis: str = dspy.OutputField()
    major_errors: int = dspy.OutputField(ge=0)
    minor_errors: int = dspy.OutputField(ge=0)

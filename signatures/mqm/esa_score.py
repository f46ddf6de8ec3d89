"""GEMBA-ESA, step 2: a 0-100 score for the translation given its annotated error spans.

The scale's reference points are ESA's (Kocmi et al., 2024): 0 no meaning preserved, 33 some
meaning preserved, 66 most meaning preserved and few grammar mistakes, 100 perfect meaning and
grammar. :class:`DirectScore` is the paper's ablation without the span step: the same scale,
scored from the source and translation alone.
"""

from __future__ import annotations

import dspy

from tribunal.signatures.mqm.esa_spans import ESAError

ESA_MIN, ESA_MAX = 0.0, 100.0


class ESAScore(dspy.Signature):
    """Given the translation and its annotated error spans, assign a score on a continuous scale
    from 0 to 100. The scale has these reference points: 0 = no meaning preserved, 33 = some
    meaning preserved, 66 = most meaning preserved and few grammar mistakes, up to 100 = perfect
    meaning and grammar. Weigh the annotated errors by their severity; no errors means a score at
    or near 100."""

    source_lang: str = dspy.InputField()
    target_lang: str = dspy.InputField()
    source: str = dspy.InputField()
    translation: str = dspy.InputField()
    errors: list[ESAError] = dspy.InputField(desc="the annotated error spans (empty: none found)")
    score: float = dspy.OutputField(desc="0 to 100", ge=ESA_MIN, le=ESA_MAX)


class DirectScore(dspy.Signature):
    """Score the translation of the source on a continuous scale from 0 to 100. The scale has these
    reference points: 0 = no meaning preserved, 33 = some meaning preserved, 66 = most meaning
    preserved and few grammar mistakes, up to 100 = perfect meaning and grammar."""

    source_lang: str = dspy.InputField()
    target_lang: str = dspy.InputField()
    source: str = dspy.InputField()
    translation: str = dspy.InputField()
    score: float = dspy.OutputField(desc="0 to 100", ge=ESA_MIN, le=ESA_MAX)

"""MQM-APE's pairwise quality verifier: which of two translations of the source is better."""

from __future__ import annotations

from typing import Literal

import dspy


class PairwiseQuality(dspy.Signature):
    """Evaluate two translations of the same source and decide which translation is better.
    Answer A or B."""

    source_lang: str = dspy.InputField()
    target_lang: str = dspy.InputField()
    source: str = dspy.InputField()
    translation_a: str = dspy.InputField()
    translation_b: str = dspy.InputField()
    better: Literal["A", "B"] = dspy.OutputField()

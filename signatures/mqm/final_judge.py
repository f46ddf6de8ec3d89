"""Stage 3 of M-MAD: the final judgment over all dimension verdicts."""

from __future__ import annotations

import dspy

from tribunal.signatures.mqm.errors import DimensionError


class FinalJudgment(dspy.Signature):
    """You are the final MQM judge. You receive the errors each dimension group settled on. Drop errors
    that are invalid (not a real error, or a span that is not in the text), and when several annotations
    cover the same or overlapping words for the same problem, keep only the most fitting one. Do not add
    new errors. Output the final error list."""

    source_lang: str = dspy.InputField()
    target_lang: str = dspy.InputField()
    source: str = dspy.InputField()
    translation: str = dspy.InputField()
    verdicts: list[DimensionError] = dspy.InputField(desc="the errors of every dimension after debate")
    errors: list[DimensionError] = dspy.OutputField()

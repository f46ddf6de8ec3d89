"""The judge of the deliberation strategy: after fixed rounds, decides a dimension's errors."""

from __future__ import annotations

import dspy

from tribunal.signatures.mqm.errors import DimensionError


class DebateVerdict(dspy.Signature):
    """You judge a finished debate about one MQM dimension of a translation assessment. Weigh both
    sides' arguments on the topic and give the error list that is best supported."""

    source: str = dspy.InputField()
    translation: str = dspy.InputField()
    dimension: str = dspy.InputField()
    topic: str = dspy.InputField()
    assessment: list[DimensionError] = dspy.InputField(desc="the stage-1 errors under debate")
    debate: str = dspy.InputField()
    errors: list[DimensionError] = dspy.OutputField()

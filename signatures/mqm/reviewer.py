"""The reviewer of the review strategies: questions the debaters between rounds, then decides."""

from __future__ import annotations

import dspy

from tribunal.signatures.mqm.errors import DimensionError


class ReviewTurn(dspy.Signature):
    """You review a debate about one MQM dimension of a translation assessment. If the arguments settle
    the topic, set decided to true and give the final error list. Otherwise ask the debaters pointed
    questions that would settle it, and give your provisional error list. In the final round you must
    decide."""

    source: str = dspy.InputField()
    translation: str = dspy.InputField()
    dimension: str = dspy.InputField()
    topic: str = dspy.InputField()
    assessment: list[DimensionError] = dspy.InputField(desc="the stage-1 errors under debate")
    debate: str = dspy.InputField()
    final_round: bool = dspy.InputField()
    questions: str = dspy.OutputField(desc="questions for the debaters (empty once decided)")
    decided: bool = dspy.OutputField()
    errors: list[DimensionError] = dspy.OutputField()

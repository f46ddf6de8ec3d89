"""Signature of the critique-engagement judge."""

from __future__ import annotations

from typing import Literal

import dspy

EngagementLabel = Literal["answered", "conceded", "partial", "dropped"]
ENGAGEMENT_LABELS: tuple[str, ...] = ("answered", "conceded", "partial", "dropped")


class JudgeEngagement(dspy.Signature):
    """Judge how the revised hypothesis engages with one reviewer demand.

    answered: the revision addresses the demand with new reasoning or evidence and keeps
    its position; conceded: the revision accepts the criticism and changes the hypothesis
    accordingly; partial: the demand is addressed only in part; dropped: the demand is
    ignored or evaded."""

    demand: str = dspy.InputField()
    hypothesis_before: str = dspy.InputField()
    hypothesis_after: str = dspy.InputField()
    author_response: str = dspy.InputField()
    label: EngagementLabel = dspy.OutputField()

"""Signature of the post-hoc critique-engagement judge (arXiv 2610.04133's labels and definitions).

The judge reads one challenge (the critic's demands on a hypothesis) and the author's reply,
and labels every demand at once: a typed list, one label per demand, in order.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import dspy

ENGAGEMENT_LABELS: tuple[str, ...] = ("answered", "conceded", "partial", "dropped")


class EngagementLabel(StrEnum):
    """The four labels. ``"Answered"`` or ``" answered "`` is ``answered``: models capitalise enum values."""

    answered = "answered"
    conceded = "conceded"
    partial = "partial"
    dropped = "dropped"

    @classmethod
    def _missing_(cls, value: Any) -> "EngagementLabel | None":
        if isinstance(value, str):
            return cls.__members__.get(value.strip().lower())
        return None


class JudgeEngagement(dspy.Signature):
    """A critic challenged a mechanistic hypothesis with several demands, and the author replied
    (a response to each demand and a revised hypothesis). Label how the reply engages with
    each demand, in the order of the demands:

    answered: the reply engages with the demand: it gives a reason, evidence, or a stated
      ground for refusing it;
    conceded: the reply withdraws, corrects or downgrades its claim in response to the demand;
    partial: the reply takes up only part of the demand;
    dropped: the reply does not take up the demand.

    Judge what the reply does, not whether it is right or the mechanism is plausible. Give
    exactly one label per demand."""

    demands: list[str] = dspy.InputField(desc="The critic's demands, in order.")
    hypothesis_before: str = dspy.InputField(desc="The hypothesis the critic challenged.")
    responses: list[str] = dspy.InputField(desc="The author's response to each demand, same order.")
    hypothesis_after: str = dspy.InputField(desc="The author's revised hypothesis (or alternatives).")
    demand_labels: list[EngagementLabel] = dspy.OutputField(desc="One label per demand, same order.")

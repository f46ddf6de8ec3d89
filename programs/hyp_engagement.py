"""Critique-engagement judge: labels one demand answered / conceded / partial / dropped."""

from __future__ import annotations

import dspy

from tribunal.signatures.hyp_engagement import JudgeEngagement


class EngagementJudge(dspy.Module):
    def __init__(self):
        super().__init__()
        self.judge = dspy.Predict(JudgeEngagement)

    def forward(self, demand: str, hypothesis_before: str, hypothesis_after: str, author_response: str,
                config: dict | None = None) -> dspy.Prediction:
        """``label`` is ``None`` (unscored, with ``error``) when the answer cannot be parsed."""
        try:
            out = self.judge(demand=demand, hypothesis_before=hypothesis_before, hypothesis_after=hypothesis_after,
                             author_response=author_response, config=config or {})
        except Exception as err:  # an unparseable label is unscored, never a default label
            return dspy.Prediction(label=None, error=f"{type(err).__name__}: {str(err)[:200]}")
        return dspy.Prediction(label=out.label, error=None)

"""Post-hoc critique-engagement judge: one call per challenge, one label per demand.

It runs after the workflow, on the stored challenges, under its own LM (the judge model at
temperature 0), never inside the workflow with the generation model. An answer that cannot be
parsed, or that labels a different number of demands than the challenge has, leaves every
demand of that challenge *unscored* (``None``) with the reason; no label is ever defaulted.
"""

from __future__ import annotations

import dspy

from tribunal.programs.answers import tolerant_answers
from tribunal.signatures.hyp_engagement import JudgeEngagement

NO_RESPONSE = "(no response)"


class EngagementJudge(dspy.Module):
    def __init__(self):
        super().__init__()
        self.judge = dspy.Predict(JudgeEngagement)

    def forward(self, demands: list[str], hypothesis_before: str, responses: list[str | None],
                hypothesis_after: str) -> dspy.Prediction:
        """``demand_labels``: one of answered / conceded / partial / dropped per demand, or all ``None`` with ``error``."""
        unscored = [None] * len(demands)
        try:
            with tolerant_answers():
                out = self.judge(demands=list(demands), hypothesis_before=hypothesis_before,
                                 responses=[r if r else NO_RESPONSE for r in responses],
                                 hypothesis_after=hypothesis_after)
        except Exception as err:  # an unparseable answer is unscored, never a default label
            return dspy.Prediction(demand_labels=unscored, error=f"{type(err).__name__}: {str(err)[:200]}")
        labels = [label.value for label in out.demand_labels]
        if len(labels) != len(demands):
            return dspy.Prediction(demand_labels=unscored, error=f"{len(labels)} labels for {len(demands)} demands")
        return dspy.Prediction(demand_labels=labels, error=None)

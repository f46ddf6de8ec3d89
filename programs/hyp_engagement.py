"""Post-hoc critique-engagement judge: one call per challenge, one label per demand.

It runs after the workflow, on the stored challenges, under its own LM (the judge model at
temperature 0), never inside the workflow with the generation model. An answer that cannot be
parsed, or that labels a different number of demands than the challenge has, is re-asked
(:func:`tribunal.programs.answers.ask`); still unusable, it leaves every demand of that challenge
*unscored* (``None``) with the reason in one line; no label is ever defaulted.
"""

from __future__ import annotations

import dspy

from tribunal.programs.answers import UnusableAnswer, ask, describe, tolerant_answers
from tribunal.core.judges import Calls
from tribunal.programs.answers.failures import ANSWER_FAILURES, is_answer_failure
from tribunal.programs.mqm.roles import calls_as
from tribunal.signatures.hyp_engagement import JudgeEngagement

NO_RESPONSE = "(no response)"
STAGE, ROLE = "engagement", "engagement_judge"  # the tag of its calls (usage per role, --estimate's by_role)
CALLS = Calls("1 engagement-judge call per challenge (each critique a hypothesis met), after the workflow; "
              "runs already labelled by this judge cost none", fixed=False)
"""Its call structure, as ``tribunal hyp run --estimate`` reports it."""


class EngagementJudge(dspy.Module):
    def __init__(self):
        super().__init__()
        self.judge = dspy.Predict(JudgeEngagement)

    def forward(self, demands: list[str], hypothesis_before: str, responses: list[str | None],
                hypothesis_after: str) -> dspy.Prediction:
        """``demand_labels``: one of answered / conceded / partial / dropped per demand, or all ``None`` with ``error``."""
        unscored = [None] * len(demands)

        def one_per_demand(out: dspy.Prediction) -> None:
            if len(out.demand_labels) != len(demands):
                raise UnusableAnswer(f"it gave {len(out.demand_labels)} labels for {len(demands)} demands; "
                                     "one label per demand is needed")

        try:
            with tolerant_answers(), calls_as(STAGE, ROLE):
                out = ask(self.judge, check=one_per_demand, role="engagement judge", demands=list(demands),
                          hypothesis_before=hypothesis_before, responses=[r if r else NO_RESPONSE for r in responses],
                          hypothesis_after=hypothesis_after)
        except ANSWER_FAILURES as err:  # unusable after the re-asks, or an LM failure: unscored, never a default label
            if not is_answer_failure(err):  # tribunal's own (the local server is gone): the run stops
                raise
            return dspy.Prediction(demand_labels=unscored, error=describe(err)[:300])
        return dspy.Prediction(demand_labels=[label.value for label in out.demand_labels], error=None)

"""The proposer / critic / reviser workflow over K critique rounds from one opening hypothesis.

Round k: the critic lists demands on the current hypothesis, the reviser answers them with a
revised hypothesis, and the engagement judge labels each demand. K = 0 delivers the
proposer's hypothesis as is. ``rollout`` gives each run its own sample (and cache entries).
"""

from __future__ import annotations

import dspy

from tribunal.eval.hyp.records import DemandRecord, chain_hypothesis
from tribunal.programs.hyp_engagement import EngagementJudge
from tribunal.signatures.hyp_workflow import CritiqueHypothesis, ProposeHypothesis, ReviseHypothesis


class HypothesisWorkflow(dspy.Module):
    def __init__(self, rounds: int):
        super().__init__()
        if rounds < 0:
            raise ValueError("rounds must be >= 0")
        self.rounds = rounds
        self.proposer = dspy.Predict(ProposeHypothesis)
        self.critic = dspy.Predict(CritiqueHypothesis)
        self.reviser = dspy.Predict(ReviseHypothesis)
        self.engagement = EngagementJudge()

    def forward(self, research_question: str, observed_finding: str, opening_hypothesis: str,
                hypothesis_id: str, slot: int = 0, rollout: int | None = None) -> dspy.Prediction:
        config = {"rollout_id": rollout} if rollout is not None else {}
        context = dict(research_question=research_question, observed_finding=observed_finding)
        proposed = self.proposer(**context, opening_hypothesis=opening_hypothesis, config=config)
        current = chain_hypothesis(f"{hypothesis_id}/k0", proposed.statement, proposed.explanation, proposed.causal_chain)
        demands: list[DemandRecord] = []
        for round_ in range(1, self.rounds + 1):
            critique = self.critic(**context, hypothesis=current.render(), config=config)
            revised = self.reviser(**context, hypothesis=current.render(), demands=critique.demands, config=config)
            after = chain_hypothesis(f"{hypothesis_id}/k{round_}", revised.statement, revised.explanation,
                                     revised.causal_chain)
            responses = list(revised.responses) + [None] * (len(critique.demands) - len(revised.responses))
            for demand, response in zip(critique.demands, responses):
                verdict = self.engagement(demand=demand, hypothesis_before=current.render(),
                                          hypothesis_after=after.render(), author_response=response or "(no response)",
                                          config=config)
                demands.append(DemandRecord(slot=slot, round=round_, demand=demand, response=response,
                                            label=verdict.label, error=verdict.error))
            current = after
        return dspy.Prediction(hypothesis=current, demands=demands)

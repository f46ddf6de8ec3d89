"""Signatures of the proposer / critic / reviser hypothesis workflow."""

from __future__ import annotations

import dspy


class ProposeHypothesis(dspy.Signature):
    """You are a scientist. Starting from the opening hypothesis, propose a precise mechanistic
    hypothesis that explains the observed finding: a causal chain from an initiating event
    through intermediate steps to the finding, a one-sentence statement and an explanation."""

    research_question: str = dspy.InputField()
    observed_finding: str = dspy.InputField()
    opening_hypothesis: str = dspy.InputField()
    statement: str = dspy.OutputField()
    explanation: str = dspy.OutputField(desc="The mechanism, step by step.")
    causal_chain: list[str] = dspy.OutputField(desc="Initiating event, intermediate steps, finding (>= 3 items).")


class CritiqueHypothesis(dspy.Signature):
    """You are a critical reviewer. List concrete demands the author must address for this
    hypothesis to be convincing: missing evidence, a weak causal link, an alternative
    explanation to rule out. Each demand is one self-contained sentence."""

    research_question: str = dspy.InputField()
    observed_finding: str = dspy.InputField()
    hypothesis: str = dspy.InputField()
    demands: list[str] = dspy.OutputField(desc="1 to 4 demands.")


class ReviseHypothesis(dspy.Signature):
    """You are the scientist who proposed the hypothesis. Revise it in light of the reviewer's
    demands. For each demand, in order, say how you addressed it (or why you did not)."""

    research_question: str = dspy.InputField()
    observed_finding: str = dspy.InputField()
    hypothesis: str = dspy.InputField()
    demands: list[str] = dspy.InputField()
    statement: str = dspy.OutputField()
    explanation: str = dspy.OutputField()
    causal_chain: list[str] = dspy.OutputField(desc="Initiating event, intermediate steps, finding (>= 3 items).")
    responses: list[str] = dspy.OutputField(desc="One response per demand, same order.")

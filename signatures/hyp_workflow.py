"""Signatures of the proposer / critic / reviser hypothesis workflow.

Proposer and reviser return a typed list of hypotheses: normally one, and distinct
alternatives (up to ``max_hypotheses``) only when the evidence cannot decide between
mechanisms. Each alternative starts its own branch of the opening hypothesis' lineage.
What a value must meet is part of its schema (a chain of at least three non-empty steps, at least
one hypothesis, one to four demands), so a model answering in JSON mode sees it and the reader
re-asks an answer that breaks it.
"""

from __future__ import annotations

import dspy
from typing import Annotated

from pydantic import BaseModel, Field, StringConstraints


ChainStepText = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


class MechanisticHypothesis(BaseModel):
    statement: str = Field(description="The hypothesis in one sentence.")
    explanation: str = Field(description="The mechanism, step by step.")
    causal_chain: list[ChainStepText] = Field(
        min_length=3, description="The initiating event, at least one intermediate step, and the observed finding.")


class ProposeHypotheses(dspy.Signature):
    """You are a scientist. Starting from the opening hypothesis, propose a precise mechanistic
    hypothesis that explains the observed finding: a causal chain from an initiating event
    through intermediate steps to the finding, a one-sentence statement and an explanation.
    Use the evidence passages where they bear on it. Propose one hypothesis; propose distinct
    alternatives (at most max_hypotheses) only when the opening hypothesis admits mechanisms
    that the evidence cannot decide between."""

    research_question: str = dspy.InputField()
    observed_finding: str = dspy.InputField()
    evidence: str = dspy.InputField(desc="Numbered passages supplied with the instance; cite them as [n].")
    opening_hypothesis: str = dspy.InputField()
    max_hypotheses: int = dspy.InputField()
    hypotheses: list[MechanisticHypothesis] = dspy.OutputField(desc="1 to max_hypotheses hypotheses.", min_length=1)


class CritiqueHypothesis(dspy.Signature):
    """You are a critical reviewer. List concrete demands the author must address for this
    hypothesis to be convincing: missing evidence, a weak causal link, an alternative
    explanation to rule out, a conflict with the evidence passages. Each demand is one
    self-contained sentence."""

    research_question: str = dspy.InputField()
    observed_finding: str = dspy.InputField()
    evidence: str = dspy.InputField(desc="Numbered passages supplied with the instance.")
    hypothesis: str = dspy.InputField()
    demands: list[str] = dspy.OutputField(desc="1 to 4 demands.", min_length=1, max_length=4)


class ReviseHypothesis(dspy.Signature):
    """You are the scientist who proposed the hypothesis. Revise it in light of the reviewer's
    demands, using the evidence passages where they bear on them. For each demand, in order,
    say how you addressed it (or why you did not). Deliver the revised hypothesis; split it into
    distinct alternatives (at most max_hypotheses) only when a demand shows mechanisms that the
    evidence cannot decide between."""

    research_question: str = dspy.InputField()
    observed_finding: str = dspy.InputField()
    evidence: str = dspy.InputField(desc="Numbered passages supplied with the instance; cite them as [n].")
    hypothesis: str = dspy.InputField()
    demands: list[str] = dspy.InputField()
    max_hypotheses: int = dspy.InputField()
    responses: list[str] = dspy.OutputField(desc="One response per demand, same order.")
    hypotheses: list[MechanisticHypothesis] = dspy.OutputField(desc="The revised hypothesis (1 to max_hypotheses).",
                                                               min_length=1)

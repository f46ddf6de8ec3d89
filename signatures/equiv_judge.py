"""Equivalence-judge signatures, one per rubric: ``full``, ``stepwise``, ``component`` and ``none``.

Every rubric frames the pair the same way: two hypotheses proposed for one instance (its
research question) to explain one observed finding. The context inputs are optional
(``instance_context``, ``observed_finding``; DSPy reserves the name ``instance``): without them
the judge is told only that both hypotheses address the same question and finding. The rubrics
differ only in what they tell the judge to compare. ``full`` is the paper's rubric (arXiv
2610.04133) in its words; ``stepwise`` is ``full`` plus the step-by-step instruction the paper
measures as a rubric of its own (first-step-swapped detection 83% -> 96%). Outputs are typed
(``Literal`` / ``bool``) and parsed by the DSPy adapter, never by regex.
"""

from __future__ import annotations

from typing import Literal

import dspy

Verdict = Literal["same", "different"]

NO_INSTANCE = "Not given; both hypotheses address the same research question."
NO_FINDING = "Not given; both hypotheses explain the same observed finding."


def _instance_field():
    return dspy.InputField(default=NO_INSTANCE,
                           desc="The instance both hypotheses were proposed for (its research question).")


def _finding_field():
    return dspy.InputField(default=NO_FINDING, desc="The observed finding both hypotheses explain.")


FULL_RUBRIC = """Two scientific hypotheses were proposed for the same instance to explain the same observed
finding. Decide whether they describe the same mechanism.

They are the SAME when they share the same initiating event and the same essential causal
route to the finding. Differences in wording, naming (synonyms, abbreviations, aliases),
extra downstream biomarkers, or level of detail do NOT make them different.
They are DIFFERENT when the initiating event differs, when they posit a genuinely different
load-bearing route, or when they posit the opposite direction or causal orientation (one says
X raises Y where the other says X lowers Y, or one has X cause Y where the other has Y cause X).
Caution: the initiating event can differ even when downstream language overlaps."""

STEPWISE_INSTRUCTION = """Work step by step: compare the first link of each causal chain on its own before weighing
the shared steps after it."""
"""What the ``stepwise`` rubric adds to ``full`` (the paper measures this instruction as a rubric of its own)."""


class FullRubricEquivalence(dspy.Signature):
    __doc__ = FULL_RUBRIC

    instance_context: str = _instance_field()
    observed_finding: str = _finding_field()
    hypothesis_a: str = dspy.InputField(desc="First hypothesis: statement, causal chain, explanation.")
    hypothesis_b: str = dspy.InputField(desc="Second hypothesis: statement, causal chain, explanation.")
    verdict: Verdict = dspy.OutputField(desc="'same' or 'different' mechanism.")


class StepwiseRubricEquivalence(FullRubricEquivalence):
    __doc__ = f"{FULL_RUBRIC}\n{STEPWISE_INSTRUCTION}"


class ComponentRubricEquivalence(dspy.Signature):
    """Two scientific hypotheses were proposed for the same instance to explain the same observed
    finding. Compare them component by component, then decide whether they describe the same
    mechanism.

    First judge whether they share the initiating event, then whether they share the
    causal route (the intermediate steps that carry the effect), then whether they reach
    the same terminal outcome. Treat synonyms, abbreviations and rewording as the same
    thing. Finally give an overall verdict on the mechanism."""

    instance_context: str = _instance_field()
    observed_finding: str = _finding_field()
    hypothesis_a: str = dspy.InputField(desc="First hypothesis: statement, causal chain, explanation.")
    hypothesis_b: str = dspy.InputField(desc="Second hypothesis: statement, causal chain, explanation.")
    same_initiating_event: bool = dspy.OutputField(desc="Do both start from the same initiating event?")
    same_route: bool = dspy.OutputField(desc="Do both pass through the same load-bearing intermediate steps?")
    same_terminal_outcome: bool = dspy.OutputField(desc="Do both end in the same observed finding?")
    verdict: Verdict = dspy.OutputField(desc="Overall: 'same' or 'different' mechanism.")


class NoRubricEquivalence(dspy.Signature):
    """Two scientific hypotheses were proposed for the same instance to explain the same observed
    finding. Do they describe the same mechanism?"""

    instance_context: str = _instance_field()
    observed_finding: str = _finding_field()
    hypothesis_a: str = dspy.InputField()
    hypothesis_b: str = dspy.InputField()
    verdict: Verdict = dspy.OutputField(desc="'same' or 'different'.")


RUBRICS: dict[str, type[dspy.Signature]] = {
    "full": FullRubricEquivalence,
    "stepwise": StepwiseRubricEquivalence,
    "component": ComponentRubricEquivalence,
    "none": NoRubricEquivalence,
}

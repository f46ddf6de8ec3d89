"""Equivalence-judge signatures, one per rubric: ``full``, ``component`` and ``none``.

Outputs are typed (``Literal`` / ``bool``) and parsed by the DSPy adapter, never by regex.
"""

from __future__ import annotations

from typing import Literal

import dspy

Verdict = Literal["same", "different"]


class FullRubricEquivalence(dspy.Signature):
    """Decide whether two scientific hypotheses describe the same mechanism.

    They are the SAME when they share the same initiating event and the same essential
    causal route to the finding. Differences in wording, naming (synonyms, abbreviations,
    aliases), extra downstream biomarkers, or level of detail do NOT make them different.
    They are DIFFERENT when the initiating event differs, when a load-bearing step of the
    route differs, or when the direction of an effect is opposite."""

    hypothesis_a: str = dspy.InputField(desc="First hypothesis: statement, causal chain, explanation.")
    hypothesis_b: str = dspy.InputField(desc="Second hypothesis: statement, causal chain, explanation.")
    verdict: Verdict = dspy.OutputField(desc="'same' or 'different' mechanism.")


class ComponentRubricEquivalence(dspy.Signature):
    """Compare two scientific hypotheses component by component, then decide whether they
    describe the same mechanism.

    First judge whether they share the initiating event, then whether they share the
    causal route (the intermediate steps that carry the effect), then whether they reach
    the same terminal outcome. Treat synonyms, abbreviations and rewording as the same
    thing. Finally give an overall verdict on the mechanism."""

    hypothesis_a: str = dspy.InputField(desc="First hypothesis: statement, causal chain, explanation.")
    hypothesis_b: str = dspy.InputField(desc="Second hypothesis: statement, causal chain, explanation.")
    same_initiating_event: bool = dspy.OutputField(desc="Do both start from the same initiating event?")
    same_route: bool = dspy.OutputField(desc="Do both pass through the same load-bearing intermediate steps?")
    same_terminal_outcome: bool = dspy.OutputField(desc="Do both end in the same observed finding?")
    verdict: Verdict = dspy.OutputField(desc="Overall: 'same' or 'different' mechanism.")


class NoRubricEquivalence(dspy.Signature):
    """Do these two scientific hypotheses describe the same mechanism?"""

    hypothesis_a: str = dspy.InputField()
    hypothesis_b: str = dspy.InputField()
    verdict: Verdict = dspy.OutputField(desc="'same' or 'different'.")


RUBRICS: dict[str, type[dspy.Signature]] = {
    "full": FullRubricEquivalence,
    "component": ComponentRubricEquivalence,
    "none": NoRubricEquivalence,
}

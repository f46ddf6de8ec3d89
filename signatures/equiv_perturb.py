"""Signature of the LM perturbation generator: rewrite a hypothesis in one controlled way."""

from __future__ import annotations

import dspy
from pydantic import BaseModel, ConfigDict

KIND_INSTRUCTIONS = {
    "wording-only": "Reword ONLY the explanation. Keep the statement, every step (entity and text) and every "
                    "relation exactly as given.",
    "wording-chain": "Reword the causal chain: give every step a synonym, abbreviation or alias as its text, "
                     "but keep each step's entity field, their order and the relations exactly as given; "
                     "rewrite the statement and explanation to use the new wording.",
    "first-step-swapped": "Replace the initiating event (the first step) with a different, plausible initiating "
                          "event (a new entity name and text). Keep all other steps and relations exactly as "
                          "given; update the statement and explanation to the new initiating event.",
    "middle-step-swapped": "Replace exactly one intermediate step (not the first, not the last) with a different, "
                           "plausible step (a new entity name and text). Keep all other steps and relations "
                           "exactly as given; update the statement and explanation accordingly.",
    "alias-chain": "Rename the steps through aliases a specialist knows: abbreviation <-> expansion (IL-33 / "
                   "interleukin-33), gene <-> protein name (UCP1 / thermogenin), brand <-> generic name (Taxol / "
                   "paclitaxel), chemical symbol <-> name (Na+ / sodium). Rename every step that has such a name; "
                   "keep each step's entity field, its numbers and its direction words (increased, reduced, ...), "
                   "their order and the relations exactly as given; rewrite the statement and explanation to use "
                   "the new names.",
    "first-step-minimal": "Change ONE thing in the initiating event (the first step): one entity for a close "
                          "neighbour (a sibling cytokine, another drug of the same class, a neighbouring receptor), "
                          "one number, or one direction word (increased -> decreased, activates -> inhibits); or "
                          "reverse the first relation instead. Replace at most four words and copy the rest of the "
                          "step, every other step and every other relation character for character; give the changed "
                          "step a new entity equal to its new text. Update the statement and explanation to match.",
    "middle-step-minimal": "Change ONE thing in one intermediate step (not the first, not the last): one entity for a "
                           "close neighbour, one number, or one direction word; or reverse one relation after the "
                           "first instead. Replace at most four words and copy the rest of the step, every other step "
                           "and every other relation character for character; give the changed step a new entity "
                           "equal to its new text. Update the statement and explanation to match.",
}


class ChainStep(BaseModel):
    model_config = ConfigDict(extra="forbid")

    entity: str
    text: str


class PerturbHypothesis(dspy.Signature):
    """Produce a controlled perturbation of a scientific hypothesis given as a causal chain
    (initiating event -> intermediate steps -> finding). Follow the instruction exactly:
    each step has an `entity` (what the step is) and a `text` (how it is worded); copy
    anything the instruction says to keep character for character."""

    hypothesis: str = dspy.InputField(desc="JSON: statement, explanation, steps [{entity, text}], relations.")
    instruction: str = dspy.InputField(desc="The one change to make.")
    statement: str = dspy.OutputField()
    explanation: str = dspy.OutputField()
    steps: list[ChainStep] = dspy.OutputField(desc="The perturbed chain, in order.", min_length=3)
    relations: list[str] = dspy.OutputField(desc="One relation per consecutive pair of steps.")

"""A scientific hypothesis as a causal chain: initiating event -> intermediate steps -> finding.

Each step has an *entity* (its identity: the canonical name that deterministic checks
compare) and a *text* (the wording a judge sees; an alias of the entity, or the entity).
``relations[i]`` links ``steps[i]`` to ``steps[i + 1]``.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Step(BaseModel):
    """One link of a causal chain."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    entity: str = Field(description="Canonical name: what the step *is*.")
    text: str = Field(description="How the step is worded in this hypothesis.")


class Hypothesis(BaseModel):
    """A statement, its mechanistic explanation, and the causal chain behind both."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    statement: str
    explanation: str
    steps: tuple[Step, ...]
    relations: tuple[str, ...]

    @model_validator(mode="after")
    def _chain_shape(self) -> "Hypothesis":
        if len(self.steps) < 3:
            raise ValueError(f"{self.id}: a chain needs an initiating event, >= 1 intermediate step and a finding")
        if len(self.relations) != len(self.steps) - 1:
            raise ValueError(f"{self.id}: {len(self.steps)} steps need {len(self.steps) - 1} relations")
        return self

    @property
    def entities(self) -> tuple[str, ...]:
        return tuple(step.entity for step in self.steps)

    def chain_text(self) -> str:
        """``A -[increases]-> B -[causes]-> C`` in the hypothesis' own wording."""
        parts = [self.steps[0].text]
        for relation, step in zip(self.relations, self.steps[1:]):
            parts.append(f"-[{relation}]-> {step.text}")
        return " ".join(parts)

    def render(self) -> str:
        """The text every rule compares: statement, causal chain, explanation."""
        return f"Statement: {self.statement}\nCausal chain: {self.chain_text()}\nExplanation: {self.explanation}"

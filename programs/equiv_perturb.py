"""LM perturbation generator: a candidate is kept only if the deterministic check passes.

An answer that cannot be read, or whose chain cannot be built (fewer than three steps, a relation
count that does not fit), is re-asked first (:func:`tribunal.programs.answers.ask`); ``attempts``
counts fresh candidates for the deterministic check. The check is given by the caller
(``tribunal.eval.equiv.checks.check_perturbation``): programs do not import the evaluation layer.
"""

from __future__ import annotations

import json
from typing import Callable

import dspy

from tribunal.programs.answers import ask, describe, tolerant_answers
from tribunal.core.hypothesis import Hypothesis, Step
from tribunal.programs.answers.failures import ANSWER_FAILURES, is_answer_failure
from tribunal.signatures.equiv_perturb import KIND_INSTRUCTIONS, PerturbHypothesis

DEFAULT_TEMPERATURE = 0.3

# (kind, original, candidate, aliases) -> the candidate's problems; empty: valid
PerturbationCheck = Callable[[str, Hypothesis, Hypothesis, "dict | None"], list[str]]


def hypothesis_json(hypothesis: Hypothesis) -> str:
    return json.dumps({"statement": hypothesis.statement, "explanation": hypothesis.explanation,
                       "steps": [s.model_dump() for s in hypothesis.steps], "relations": list(hypothesis.relations)})


class PerturbationGenerator(dspy.Module):
    """Rewrites a hypothesis per perturbation kind; returns the candidate and its check problems."""

    def __init__(self, temperature: float = DEFAULT_TEMPERATURE, attempts: int = 1, *, check: PerturbationCheck):
        super().__init__()
        self.check = check
        self.temperature, self.attempts = temperature, max(1, attempts)
        self.rewrite = dspy.Predict(PerturbHypothesis)

    def forward(self, hypothesis: Hypothesis, kind: str, aliases: dict | None = None) -> dspy.Prediction:
        if kind not in KIND_INSTRUCTIONS:
            raise ValueError(f"unknown perturbation kind {kind!r}")
        problems: list[str] = []
        for attempt in range(self.attempts):
            config = {"temperature": self.temperature, **({"rollout_id": attempt} if attempt else {})}
            built: list[Hypothesis] = []

            def chain(out: dspy.Prediction) -> None:  # built here, so a malformed chain is re-asked
                built.append(Hypothesis(id=f"{hypothesis.id}/{kind}/lm{attempt}", statement=out.statement,
                                        explanation=out.explanation, relations=tuple(out.relations),
                                        steps=tuple(Step(entity=s.entity, text=s.text) for s in out.steps)))

            try:
                with tolerant_answers():
                    ask(self.rewrite, check=chain, role="perturbation generator", config=config,
                        hypothesis=hypothesis_json(hypothesis), instruction=KIND_INSTRUCTIONS[kind])
            except ANSWER_FAILURES as err:  # unusable after the re-asks, or failed: rejected, with the reason in one line
                if not is_answer_failure(err):  # tribunal's own (the local server is gone): the run stops
                    raise
                problems = [describe(err)[:300]]
                continue
            candidate = built[-1]
            problems = self.check(kind, hypothesis, candidate, aliases)
            if not problems:
                return dspy.Prediction(perturbed=candidate, problems=[], attempts=attempt + 1)
        return dspy.Prediction(perturbed=None, problems=problems, attempts=self.attempts)

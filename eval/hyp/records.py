"""Typed records of one workflow run (what ``tribunal hyp run`` stores, one JSON file per run)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from tribunal.eval.equiv.hypothesis import Hypothesis, Step

WORKFLOW_RELATION = "leads to"


class DemandRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    slot: int
    round: int
    demand: str
    response: str | None
    label: str | None  # None = unscored
    error: str | None = None


class RunRecord(BaseModel):
    """One run: the delivered hypothesis per opening slot (None where the run failed for it)."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    depth: int
    rerun: int
    hypotheses: list[Hypothesis | None]
    demands: list[DemandRecord] = []
    errors: list[str] = []
    traces: list[dict] = []  # per slot: start, end and predictor calls (tribunal.eval.tracking.call_log)

    @property
    def ok(self) -> bool:
        return not self.errors and all(h is not None for h in self.hypotheses)


def chain_hypothesis(hypothesis_id: str, statement: str, explanation: str, chain: list[str]) -> Hypothesis:
    """A workflow hypothesis: each chain item is its own entity, linked by ``leads to``."""
    steps = tuple(Step(entity=item.strip(), text=item.strip()) for item in chain if item.strip())
    return Hypothesis(id=hypothesis_id, statement=statement, explanation=explanation, steps=steps,
                      relations=tuple(WORKFLOW_RELATION for _ in steps[1:]))

"""Typed records of one workflow run (what ``tribunal hyp run`` stores, one JSON file per run).

A run refines each opening hypothesis of an instance into a *lineage*: the proposer's
hypotheses, then each round's revisions of them. Every delivered hypothesis records the
opening it descends from and the hypothesis it was revised from, so two runs can be matched
by lineage. Each critique (a *challenge*: the critic's demands on one hypothesis in one
round, with the author's reply) is stored for the post-hoc engagement judge, which fills in
one label per demand.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, model_validator

from tribunal.core.hypothesis import Hypothesis, Step

LabelName = Literal["answered", "conceded", "partial", "dropped"]
WORKFLOW_RELATION = "leads to"
DEFAULT_INSTANCE = "instance"  # records written before runs carried their instance


class Delivered(BaseModel):
    """A delivered hypothesis and its lineage."""

    model_config = ConfigDict(extra="forbid")

    opening: int  # index of the opening hypothesis it descends from
    parent: str | None = None  # id of the hypothesis it revises (None: a proposal)
    hypothesis: Hypothesis


class Challenge(BaseModel):
    """The critic's demands on one hypothesis in one round, the author's reply, the engagement labels."""

    model_config = ConfigDict(extra="forbid")

    opening: int
    round: int
    hypothesis_id: str  # the hypothesis the critic saw
    before: str  # ... rendered
    demands: list[str]
    responses: list[str | None]  # the author's response to each demand (None: none given)
    after: str  # the revised hypothesis (or alternatives), rendered
    labels: list[LabelName | None] = []  # one per demand once judged; None = unscored
    error: str | None = None  # why the labels are unscored


class RunRecord(BaseModel):
    """One run of one instance at one depth."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    instance: str = DEFAULT_INSTANCE
    depth: int
    rerun: int
    openings: int
    delivered: list[Delivered] = []
    challenges: list[Challenge] = []
    errors: list[str] = []
    truncated: int = 0  # revisions beyond the per-opening cap, not carried on
    degraded: list[dict] = []  # fallbacks taken: a critic or reviser round that stayed unusable (programs/fallbacks.py)
    engagement_judge: str | None = None  # the LM that labelled the challenges (None: not labelled)
    traces: list[dict] = []  # per opening: start, end and predictor calls (tribunal.eval.tracking.call_log)

    @model_validator(mode="before")
    @classmethod
    def _upgrade_slot_record(cls, data: object) -> object:
        """Records from before lineages held one hypothesis per slot and a flat list of demands."""
        if not isinstance(data, dict) or "hypotheses" not in data:
            return data
        data = dict(data)
        slots = data.pop("hypotheses")
        demands = data.pop("demands", [])
        data["openings"] = len(slots)
        data["delivered"] = [{"opening": s, "hypothesis": h} for s, h in enumerate(slots) if h is not None]
        grouped: dict[tuple[int, int], list[dict]] = {}
        for demand in demands:
            demand = demand if isinstance(demand, dict) else demand.model_dump()
            grouped.setdefault((demand["slot"], demand["round"]), []).append(demand)
        data["challenges"] = [
            {"opening": slot, "round": round_, "hypothesis_id": "", "before": "", "after": "",
             "demands": [d["demand"] for d in items], "responses": [d.get("response") for d in items],
             "labels": [d.get("label") for d in items], "error": next((d["error"] for d in items if d.get("error")), None)}
            for (slot, round_), items in grouped.items()]
        if demands:
            data.setdefault("engagement_judge", "inline (before issue 15)")
        return data

    @property
    def ok(self) -> bool:
        """No error and at least one delivered hypothesis for every opening."""
        return not self.errors and {d.opening for d in self.delivered} == set(range(self.openings))

    def lineage(self, opening: int) -> list[Hypothesis]:
        """The delivered hypotheses descending from opening ``opening``, in delivery order."""
        return [d.hypothesis for d in self.delivered if d.opening == opening]

    @property
    def hypotheses(self) -> list[Hypothesis]:
        """Every delivered hypothesis."""
        return [d.hypothesis for d in self.delivered]


def chain_hypothesis(hypothesis_id: str, statement: str, explanation: str, chain: list[str]) -> Hypothesis:
    """A workflow hypothesis: each chain item is its own entity, linked by ``leads to``."""
    steps = tuple(Step(entity=item.strip(), text=item.strip()) for item in chain if item.strip())
    return Hypothesis(id=hypothesis_id, statement=statement, explanation=explanation, steps=steps,
                      relations=tuple(WORKFLOW_RELATION for _ in steps[1:]))

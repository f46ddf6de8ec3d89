"""An equivalence judgment of a pair of hypotheses, and the votes (one per presentation order) behind it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict


class Vote(BaseModel):
    """One judgment of one pair in one presentation order (``ab`` = as given, ``ba`` = reversed)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    order: Literal["ab", "ba"]
    same: bool | None
    score: float | None = None
    detail: dict[str, object] = {}  # what the rule recorded beside its verdict (a chain rule's evidence, an LM's reasoning)
    error: str | None = None


class Judgment(BaseModel):
    """The rule's verdict on a pair; ``same=None`` means *unscored* (``reason`` says why)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    same: bool | None
    score: float | None = None
    votes: tuple[Vote, ...] = ()
    calls: int = 0
    calls_saved: int = 0
    reason: str | None = None
    route: str | None = None  # which stage decided (cascade: "screen-same", "screen-different", "judge")

    @property
    def order_flip(self) -> bool | None:
        """Did the first as-given and the first reversed vote disagree? ``None`` if not both scored."""
        first = {order: next((v.same for v in self.votes if v.order == order), None) for order in ("ab", "ba")}
        if first["ab"] is None or first["ba"] is None:
            return None
        return first["ab"] != first["ba"]

"""A dev score with its bootstrap interval: the objective and the item metric, as the reports show them.

The interval is a seeded percentile bootstrap (95%, 1000 draws by default) over *segments*: a
draw picks source segments (``seg_id``; an example without one is its own segment) with
replacement and keeps all their translations, so segment-level pairs stay within a segment. A
segment drawn twice enters as two rows (its copies carry ``_draw``), never as pairs of a
translation with its own copy. (Examples without a ``seg_id`` share one row, so a copy of one
does pair with it there: a tie on both sides.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

DRAWS, LEVEL = 1000, 0.95


@dataclass(frozen=True)
class ScoreInterval:
    """A value and its bootstrap interval."""

    value: float
    low: float
    high: float

    def metrics(self, prefix: str) -> dict[str, float]:
        return {prefix: self.value, f"{prefix}_low": self.low, f"{prefix}_high": self.high}

    def record(self) -> dict[str, float | None]:
        """``{value, low, high}`` for JSON (an undefined bound is None)."""
        return {k: (None if math.isnan(v) else v) for k, v in vars(self).items()}

    def text(self) -> str:
        return f"{self.value:.4f} [{self.low:.4f}, {self.high:.4f}]"


def _segments(golds: Sequence[Any]) -> list[list[int]]:
    groups: dict[Any, list[int]] = {}
    for index, gold in enumerate(golds):
        key = gold.get("seg_id") if hasattr(gold, "get") else None
        groups.setdefault(("seg", key) if key is not None else ("item", index), []).append(index)
    return list(groups.values())


def _draws(golds: Sequence[Any], seed: int, draws: int):
    """Per draw: the drawn item indices and their golds (copies of segmented ones tagged ``_draw``)."""
    groups = _segments(golds)
    rng = np.random.default_rng(seed)
    for _ in range(draws):
        indices, picked = [], []
        for copy, group in enumerate(rng.integers(0, len(groups), len(groups))):
            for index in groups[group]:
                gold = golds[index]
                pooled = not hasattr(gold, "get") or gold.get("seg_id") is None  # one row for all: keep it one
                indices.append(index)
                picked.append(gold if pooled else gold.copy(_draw=copy))
        yield indices, picked


def bootstrap(statistic: Any, predictions: Sequence[Any], golds: Sequence[Any], seed: int = 0,
              draws: int = DRAWS, level: float = LEVEL, item_scores: Sequence[float] | None = None) -> ScoreInterval:
    """``statistic(predictions, golds[, item_scores=...])`` and its percentile interval over segment resamples.

    ``item_scores`` (the per-item metric, computed once) is passed on, resampled, when given.
    """
    def call(preds: Sequence[Any], picked: Sequence[Any], scores: Sequence[float] | None) -> float:
        return float(statistic(preds, picked) if scores is None else statistic(preds, picked, item_scores=scores))

    value = call(predictions, golds, item_scores)
    if len(_segments(golds)) < 2 or draws < 1:
        return ScoreInterval(value, math.nan, math.nan)
    values = [call([predictions[i] for i in indices], picked,
                   None if item_scores is None else [item_scores[i] for i in indices])
              for indices, picked in _draws(golds, seed, draws)]
    low, high = np.nanpercentile(values, [100 * (1 - level) / 2, 100 * (1 + level) / 2])
    return ScoreInterval(value, float(low), float(high))


@dataclass(frozen=True)
class ObjectiveScores:
    """The objective and the item metric of one program on dev, each with its interval."""

    objective: ScoreInterval
    item: ScoreInterval


def score_both(objective: Any, predictions: Sequence[Any], golds: Sequence[Any], seed: int = 0,
               draws: int = DRAWS) -> ObjectiveScores:
    """The objective and the item metric (``objective.metric`` averaged) on the same draws' seed."""
    from tribunal.optimizers.objectives import OBJECTIVES, Objective  # heavy: pulls in scipy, pydantic

    item = Objective(((OBJECTIVES["item"], 1.0),), objective.metric)
    scores = item.item_scores(predictions, golds)  # judged once; the draws reuse them
    return ObjectiveScores(bootstrap(objective.value, predictions, golds, seed, draws, item_scores=scores),
                           bootstrap(item.value, predictions, golds, seed, draws, item_scores=scores))

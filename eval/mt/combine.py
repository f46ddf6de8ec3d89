"""Combining K sampled judgments of one item into one score (pure functions; ``--combine``).

- ``mean``: the arithmetic mean of the usable samples' scores.
- ``median``: their median (the mean of the two middle scores for an even count).
- ``trimmed``: tribunal's own rule for any judge at any K, modelled on GEMBA-MQM V2's aggregation.
  It is **not the published rule**: only the paper's abstract could be read (Junczys-Dowmunt, 2025,
  "GEMBA V2: Ten Judgments Are Better Than One", WMT25, ACL Anthology 2025.wmt-1.67: "each segment
  is scored ten times and aggregated with a reciprocal-rank weighted average (RRWA) after removing
  outliers beyond 2σ"), so the ranking and the deviation below are our choices:

  1. outliers: a score whose distance from the mean of the K scores exceeds 2 standard deviations
     (population standard deviation, ddof=0) is removed; with all scores equal nothing is. With
     ddof=0 one score can lie at most (K-1)/sqrt(K) deviations from the mean, so fewer than 6
     samples never lose one (K=5: 1.79);
  2. RRWA: the kept scores are ranked from the best (highest: MQM penalties are negative, ESA's
     0-100 is higher-better) to the worst, and the score at rank r weighs 1/r:
     ``sum(s_r / r) / sum(1 / r)``. Tied scores get consecutive ranks; their order does not
     change the value.

  Worked example (``tests/eval/mt/test_combine.py``): scores -1, -2, -2, -3, -25, -1 have mean
  -5.667 and deviation 8.673; -25 lies 19.33 > 17.35 from the mean and is removed; the kept
  -1, -1, -2, -2, -3 weigh 1, 1/2, 1/3, 1/4, 1/5: RRWA = -3.2667 / 2.2833 = -1.4307.
- ``gemba-v2``: the published rule as far as its text could be read, the ``gemba-mqm-v2`` preset's
  (:func:`tribunal.programs.mqm.gemba_v2_aggregation.gemba_v2_aggregate`, whose docstring gives
  each reading and its evidence). It gives the same values as ``trimmed`` today; it is a separate
  name so that a reading corrected from the paper changes the preset, not ``trimmed``'s tables.

Each rule returns the combined value and the indices of the scores it kept (all, except the
outliers ``trimmed`` and ``gemba-v2`` remove).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Callable, Sequence

from tribunal.programs.mqm.gemba_v2_aggregation import gemba_v2_aggregate

OUTLIER_DEVIATIONS = 2.0


@dataclass(frozen=True)
class Combined:
    value: float
    kept: tuple[int, ...]
    """Indices (into the scores combined) of the scores the rule used."""


def combine_mean(scores: Sequence[float]) -> Combined:
    return Combined(math.fsum(scores) / len(scores), tuple(range(len(scores))))


def combine_median(scores: Sequence[float]) -> Combined:
    return Combined(float(statistics.median(scores)), tuple(range(len(scores))))


def outliers_removed(scores: Sequence[float], deviations: float = OUTLIER_DEVIATIONS) -> tuple[int, ...]:
    """Indices of the scores within ``deviations`` population standard deviations of the mean."""
    mean = math.fsum(scores) / len(scores)
    spread = statistics.pstdev(scores)
    return tuple(i for i, s in enumerate(scores) if abs(s - mean) <= deviations * spread)


def reciprocal_rank_weighted(scores: Sequence[float]) -> float:
    """The best score weighs 1, the second 1/2, ..., the worst 1/n (scores ranked highest first)."""
    ranked = sorted(scores, reverse=True)
    weights = [1.0 / rank for rank in range(1, len(ranked) + 1)]
    return math.fsum(w * s for w, s in zip(weights, ranked)) / math.fsum(weights)


def combine_trimmed(scores: Sequence[float]) -> Combined:
    kept = outliers_removed(scores)
    return Combined(reciprocal_rank_weighted([scores[i] for i in kept]), kept)


def combine_gemba_v2(scores: Sequence[float]) -> Combined:
    value, kept = gemba_v2_aggregate(scores)
    return Combined(value, kept)


RULES: dict[str, Callable[[Sequence[float]], Combined]] = {
    "mean": combine_mean, "median": combine_median, "trimmed": combine_trimmed, "gemba-v2": combine_gemba_v2}


def combine(scores: Sequence[float], rule: str) -> Combined:
    """``scores`` (at least one) combined by ``rule`` (``mean`` | ``median`` | ``trimmed`` | ``gemba-v2``)."""
    if not scores:
        raise ValueError("nothing to combine")
    return RULES[rule](list(scores))


def spread(scores: Sequence[float]) -> dict[str, float]:
    """Standard deviation (population), minimum and maximum of the scores."""
    return {"std": statistics.pstdev(scores), "min": min(scores), "max": max(scores)}


def nearest(scores: Sequence[float], value: float, among: Sequence[int]) -> int:
    """The index in ``among`` whose score is nearest ``value`` (the first on a tie)."""
    return min(among, key=lambda i: (abs(scores[i] - value), i))

"""``--embedding-threshold auto``: a threshold chosen so that the rule's same-pair rate hits a target.

arXiv 2610.04133 sets its embedding threshold so that the embedding rule's marginal share of
pairs called "same" matches the range of the other rules, without using pair labels. Here the
target is either a given rate or the mean same-pair rate of the other rules of the run
(``peers``) on the very pairs being judged; the threshold is the cut of the scores whose
same-pair rate is closest to it (ties: the higher threshold). No label is read.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

if TYPE_CHECKING:
    from tribunal.eval.equiv.rules.base import EquivalenceRule, Pair


@dataclass
class RateTarget:
    """A fixed same-pair rate, or the mean same-pair rate of ``peers`` on the same pairs."""

    rate: float | None = None
    peers: Sequence["EquivalenceRule"] = field(default_factory=list)

    def describe(self) -> str:
        if self.rate is not None:
            return f"rate={self.rate:g}"
        return "peers=" + "+".join(p.label for p in self.peers)

    def resolve(self, pairs: Sequence["Pair"]) -> tuple[float, dict[str, float]]:
        """The target rate, and each peer's own same-pair rate (empty for a fixed rate)."""
        if self.rate is not None:
            return self.rate, {}
        if not self.peers:
            raise ValueError("no rule to match: give a target rate or other rules")
        rates = {peer.label: same_rate([j.same for j in peer.judge_pairs(pairs)]) for peer in self.peers}
        usable = [r for r in rates.values() if not math.isnan(r)]
        if not usable:
            raise ValueError("no peer rule scored any pair; cannot calibrate the threshold")
        return float(np.mean(usable)), rates


def same_rate(verdicts: Sequence[bool | None]) -> float:
    """Share of scored verdicts that are "same" (NaN when none is scored)."""
    scored = [v for v in verdicts if v is not None]
    return sum(scored) / len(scored) if scored else math.nan


def threshold_for_rate(scores: Sequence[float], rate: float) -> float:
    """The cut whose share of ``scores >= cut`` is closest to ``rate`` (ties: the higher cut).

    Cuts lie halfway between consecutive distinct scores (plus the lowest score, and just above
    the highest), so the same scores always land on the same side of the calibrated threshold.
    """
    values = np.unique(np.asarray(scores, dtype=float))
    if values.size == 0:
        raise ValueError("no scores to calibrate on")
    cuts = np.concatenate([[values[0]], (values[:-1] + values[1:]) / 2, [np.nextafter(values[-1], np.inf)]])
    achieved = np.array([np.mean(np.asarray(scores) >= cut) for cut in cuts])
    gaps = np.abs(achieved - rate)
    best = np.flatnonzero(gaps <= gaps.min() + 1e-12)[-1]
    return float(cuts[best])


def calibrate_threshold(scores: Sequence[float], target: RateTarget, pairs: Sequence["Pair"]) -> dict[str, Any]:
    """Threshold, target rate, achieved rate and each peer's rate, for logging and the report."""
    rate, peer_rates = target.resolve(pairs)
    threshold = threshold_for_rate(scores, rate)
    result: dict[str, Any] = {"threshold": threshold, "target_rate": rate,
                              "achieved_rate": float(np.mean(np.asarray(scores) >= threshold)),
                              "pairs": len(scores)}
    result.update({f"rate_{label}": value for label, value in peer_rates.items()})
    return result

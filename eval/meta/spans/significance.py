"""Is one judge's span F higher than another's? A seeded paired permutation test over segments, and clusters.

Both judges are scored on the same gold segments. Under the null hypothesis the two judges are
exchangeable, so each segment's pair of outcomes is swapped with probability 1/2 (approximate
randomisation, as :mod:`tribunal.eval.meta.significance` does for scores; Noreen 1989, Riezler &
Maxwell 2005) and the F difference recomputed. What is swapped is the segment's four sums
(:class:`~tribunal.eval.meta.spans.scoring.SegmentCounts`), so the micro F of every draw is read off
re-added totals exactly as the observed one is; for macro F the per-segment F values are swapped.
The p-value is one-sided in the direction of the observed difference with the (1 + count) /
(1 + samples) correction (Phipson & Smyth 2010). A paired bootstrap over segments gives a 95%
interval for the difference (Koehn 2004).

Clusters follow the score-level procedure (:func:`tribunal.eval.meta.clusters.assign_ranks`, as in
mt-metrics-eval): judges in decreasing F; a judge starts a new, lower cluster when some judge of the
current cluster beats it with p <= alpha.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from tribunal.eval.meta.clusters import ALPHA, TIE, assign_ranks
from tribunal.eval.meta.spans.scoring import SegmentCounts

_FIELDS = ("tp_p", "n_p", "tp_r", "n_g")


def _matrix(counts: Sequence[SegmentCounts]) -> np.ndarray:
    return np.array([[getattr(c, k) for k in _FIELDS] for c in counts], float).reshape(-1, 4)


def _f(tot: np.ndarray) -> np.ndarray:
    """Vectorised F under the empty-side convention; ``tot[..., 4]`` = tp_p, n_p, tp_r, n_g."""
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(tot[..., 1] > 0, tot[..., 0] / tot[..., 1], 1.0)
        r = np.where(tot[..., 3] > 0, tot[..., 2] / tot[..., 3], 1.0)
        return np.where(p + r > 0, 2 * p * r / (p + r), 0.0)


def span_f_statistic(rows: np.ndarray, averaging: str) -> np.ndarray:
    """F of (draws x segments x 4) sums: of the totals (micro) or the mean of the segments' F (macro)."""
    return _f(rows.sum(axis=-2)) if averaging == "micro" else _f(rows).mean(axis=-1)


@dataclass(frozen=True)
class SpanTest:
    f_a: float
    f_b: float
    delta: float
    p_value: float
    interval: tuple[float, float]
    segments: int
    samples: int
    seed: int


def paired_test(a: Sequence[SegmentCounts], b: Sequence[SegmentCounts], averaging: str = "micro",
                samples: int = 1000, seed: int = 1234) -> SpanTest:
    """Paired permutation test and bootstrap interval of F(A) - F(B) over the same segments."""
    ma, mb = _matrix(a), _matrix(b)
    if ma.shape != mb.shape or len(ma) == 0:
        raise ValueError("both judges need counts for the same, non-empty list of segments")
    f_a, f_b = (float(span_f_statistic(m[None], averaging)[0]) for m in (ma, mb))
    delta = f_a - f_b
    rng = np.random.default_rng(seed)
    null = []
    for chunk in np.array_split(np.arange(samples), max(1, samples // 200)):
        swap = (rng.random((len(chunk), len(ma))) < 0.5)[..., None]
        null.append(span_f_statistic(np.where(swap, mb, ma), averaging) - span_f_statistic(np.where(swap, ma, mb), averaging))
    draws = np.concatenate(null)
    extreme = (draws >= delta - TIE) if delta >= 0 else (draws <= delta + TIE)
    p_value = (1 + extreme.sum()) / (1 + len(draws))
    index = np.random.default_rng(seed + 1).integers(0, len(ma), size=(samples, len(ma)))
    boot = span_f_statistic(ma[index], averaging) - span_f_statistic(mb[index], averaging)
    low, high = np.percentile(boot, [2.5, 97.5])
    return SpanTest(f_a, f_b, delta, float(p_value), (float(low), float(high)), len(ma), samples, seed)


@dataclass(frozen=True)
class SpanRanking:
    judges: list[str]
    f: list[float]
    p_values: np.ndarray
    ranks: list[int]


def clusters(counts: dict[str, Sequence[SegmentCounts]], averaging: str = "micro", samples: int = 1000,
             seed: int = 1234, alpha: float = ALPHA) -> SpanRanking:
    """Significance clusters of several judges scored on the same segments."""
    f = {name: float(span_f_statistic(_matrix(c)[None], averaging)[0]) for name, c in counts.items()}
    order = sorted(f, key=lambda n: (-f[n], n))
    p = np.zeros((len(order), len(order)))
    for x in range(len(order)):
        for y in range(x + 1, len(order)):
            p[x, y] = paired_test(counts[order[x]], counts[order[y]], averaging, samples, seed).p_value
    return SpanRanking(order, [f[n] for n in order], p, assign_ranks(p, alpha))

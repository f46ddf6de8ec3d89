"""Exact rationals over one common denominator, for sums, sorting and tail counts in numpy.

A value is an integer numerator over a fixed denominator, stored as int64 *limbs*
``sum(limb[k] * 2**(62 k))`` (least significant first; every limb but the last in ``[0, 2**62)``,
the last carries the sign, as Python's ``>>``), beside a float64 approximation of the value.
Sorting and searching go by the floats, which are far closer to the exact values than
:data:`BAND`; only values within the band of each other are ordered and compared on the limbs. So
every result is exact, at close to the speed of float arithmetic, where Python integers in object
arrays are some hundred times slower.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

SHIFT = 62
MASK = (1 << SHIFT) - 1
BAND = 1e-9
"""Floats closer than this are decided on the limbs (the floats' rounding error is below 1e-12 for
sums of up to a hundred values of magnitude up to 2)."""


@dataclass(frozen=True)
class Wide:
    limbs: tuple[np.ndarray, ...]  # int64 arrays of one length, least significant first
    approx: np.ndarray  # float64: the value (numerator / denominator), rounded

    @property
    def size(self) -> int:
        return int(self.approx.size)

    def __getitem__(self, index) -> "Wide":
        return Wide(tuple(limb[index] for limb in self.limbs), self.approx[index])


def limbs_for(largest: int) -> int:
    """Limbs that hold every integer of magnitude up to ``largest`` (the top limb keeps a margin)."""
    return largest.bit_length() // SHIFT + 1


def _split(value: int, count: int) -> list[int]:
    parts = []
    for _ in range(count - 1):
        parts.append(value & MASK)
        value >>= SHIFT
    return parts + [value]


def wide(numerators: Sequence[int], denominator: int, count: int) -> Wide:
    """``numerator / denominator`` for each numerator, in ``count`` limbs."""
    parts = [_split(v, count) for v in numerators]
    return Wide(tuple(np.array([p[k] for p in parts], dtype=np.int64) for k in range(count)),
                np.array([v / denominator for v in numerators], dtype=float))


def _carried(limbs: list[np.ndarray], approx: np.ndarray) -> Wide:
    """Carry every limb but the last into the next (each limb any int64 below 2**63 in magnitude)."""
    for k in range(len(limbs) - 1):
        limbs[k + 1] = limbs[k + 1] + (limbs[k] >> SHIFT)
        limbs[k] = limbs[k] & MASK
    return Wide(tuple(limbs), approx)


def add(a: Wide, b: Wide) -> Wide:
    """Element-wise ``a + b``."""
    return _carried([x + y for x, y in zip(a.limbs, b.limbs)], a.approx + b.approx)


def add_outer(a: Wide, b: Wide) -> Wide:
    """Every ``a[i] + b[j]``, flattened row by row (as ``np.add.outer(a, b).ravel()``)."""
    return _carried([np.add.outer(x, y).ravel() for x, y in zip(a.limbs, b.limbs)],
                    np.add.outer(a.approx, b.approx).ravel())


def minus(numerator: int, denominator: int, a: Wide) -> Wide:
    """``numerator / denominator - a[i]`` for every i (``a`` over the same denominator)."""
    return _carried([part - limb for part, limb in zip(_split(numerator, len(a.limbs)), a.limbs)],
                    numerator / denominator - a.approx)


def _exact_order(a: Wide) -> np.ndarray:
    """Indices sorting ``a`` exactly: by the floats, and on the limbs within runs closer than :data:`BAND`."""
    order = np.argsort(a.approx)  # ties and near-ties are ordered on the limbs below
    near = np.diff(a.approx[order]) <= BAND
    if not near.any():
        return order
    run = np.concatenate([[0], np.cumsum(~near)])  # run id of each sorted position
    clustered = np.concatenate([near, [False]]) | np.concatenate([[False], near])
    inside = order[clustered]
    refined = inside[np.lexsort((*(limb[inside] for limb in a.limbs), run[clustered]))]
    order[clustered] = refined
    return order


def unique(a: Wide, weights: np.ndarray) -> tuple[Wide, np.ndarray]:
    """Sorted distinct values and the summed weight of each."""
    order = _exact_order(a)
    limbs = [limb[order] for limb in a.limbs]
    starts = np.zeros(order.size, dtype=bool)
    starts[0] = order.size > 0
    for limb in limbs:
        starts[1:] |= limb[1:] != limb[:-1]
    group = np.cumsum(starts) - 1
    approx = np.maximum.accumulate(a.approx[order][starts])  # monotone for searching (moves < rounding)
    return (Wide(tuple(limb[starts] for limb in limbs), approx),
            np.bincount(group, weights=weights[order], minlength=int(starts.sum())))


def _compare(values: Wide, value_index: np.ndarray, queries: Wide, query_index: np.ndarray) -> np.ndarray:
    """Sign of ``values[v] - queries[q]`` for paired indices, on the limbs."""
    sign = np.zeros(value_index.size, dtype=np.int64)
    for v_limb, q_limb in zip(values.limbs, queries.limbs):  # a more significant limb overrides
        difference = np.sign(v_limb[value_index] - q_limb[query_index])
        sign = np.where(difference != 0, difference, sign)
    return sign


def _weight_in_band(values: Wide, weights: np.ndarray, queries: Wide, low: np.ndarray, high: np.ndarray,
                    keep: int) -> np.ndarray:
    """Per query, the weight of the values in ``[low, high)`` whose sign against it is ``keep`` or 0."""
    sizes = high - low
    query_index = np.repeat(np.arange(queries.size), sizes)
    value_index = np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes) + np.repeat(low, sizes)
    sign = _compare(values, value_index, queries, query_index)
    counted = (sign == 0) | (sign == keep)
    return np.bincount(query_index, weights=weights[value_index] * counted, minlength=queries.size)


def weight_at_least(values: Wide, weights: np.ndarray, queries: Wide) -> np.ndarray:
    """Per query q, the total weight of the (sorted, distinct) values >= q."""
    cumulative = np.concatenate([[0.0], np.cumsum(weights)])
    low = np.searchsorted(values.approx, queries.approx - BAND, side="left")
    high = np.searchsorted(values.approx, queries.approx + BAND, side="right")
    return cumulative[-1] - cumulative[high] + _weight_in_band(values, weights, queries, low, high, keep=1)


def weight_at_most(values: Wide, weights: np.ndarray, queries: Wide) -> np.ndarray:
    """Per query q, the total weight of the (sorted, distinct) values <= q."""
    cumulative = np.concatenate([[0.0], np.cumsum(weights)])
    low = np.searchsorted(values.approx, queries.approx - BAND, side="left")
    high = np.searchsorted(values.approx, queries.approx + BAND, side="right")
    return cumulative[low] + _weight_in_band(values, weights, queries, low, high, keep=-1)

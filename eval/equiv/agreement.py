"""Agreement between two binary raters (rules) over the same items.

- raw agreement: share of items both scored on which they agree;
- Cohen's kappa (Cohen 1960, "A coefficient of agreement for nominal scales"), via
  scikit-learn; undefined (NaN) when chance agreement is 1, i.e. both raters give one and
  the same label to every item;
- Krippendorff's alpha, nominal (Krippendorff 2011, "Computing Krippendorff's
  Alpha-Reliability"), via the ``krippendorff`` package; it uses every scored value, so
  items one rater left unscored still count; undefined (NaN) when only one value occurs.

Undefined statistics are NaN with a note, never an exception.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

Label = bool | None


@dataclass(frozen=True)
class Agreement:
    n_items: int
    n_both_scored: int
    raw: float
    kappa: float
    alpha: float
    note: str = ""


def cohen_kappa(a: Sequence[bool], b: Sequence[bool]) -> tuple[float, str]:
    """Cohen's kappa of two complete label lists; ``(nan, why)`` when undefined."""
    from sklearn.metrics import cohen_kappa_score  # heavy: sklearn, pandas

    if not a:
        return math.nan, "no item scored by both"
    p_a, p_b = np.mean(a), np.mean(b)
    expected = p_a * p_b + (1 - p_a) * (1 - p_b)
    if expected >= 1.0:
        return math.nan, "kappa undefined: both raters give every item the same single label"
    return float(cohen_kappa_score(list(a), list(b), labels=[False, True])), ""


def krippendorff_alpha(a: Sequence[Label], b: Sequence[Label]) -> tuple[float, str]:
    """Nominal Krippendorff's alpha with missing values; ``(nan, why)`` when undefined."""
    import krippendorff  # heavy: krippendorff

    data = np.array([[math.nan if x is None else float(x) for x in row] for row in (a, b)], dtype=float)
    pairable = np.sum(~np.isnan(data), axis=0) >= 2
    if not pairable.any():
        return math.nan, "alpha undefined: no item has two scored values"
    if len(np.unique(data[~np.isnan(data)])) < 2:
        return math.nan, "alpha undefined: only one value occurs"
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")), ""


def agreement(a: Sequence[Label], b: Sequence[Label]) -> Agreement:
    """Raw agreement, Cohen's kappa and Krippendorff's alpha of two raters' labels (None = unscored)."""
    if len(a) != len(b):
        raise ValueError(f"raters labelled different numbers of items ({len(a)} vs {len(b)})")
    both = [(x, y) for x, y in zip(a, b) if x is not None and y is not None]
    raw = float(np.mean([x == y for x, y in both])) if both else math.nan
    kappa, kappa_note = cohen_kappa([x for x, _ in both], [y for _, y in both])
    alpha, alpha_note = krippendorff_alpha(a, b)
    note = "; ".join(n for n in (kappa_note, alpha_note) if n)
    return Agreement(len(a), len(both), raw, kappa, alpha, note)

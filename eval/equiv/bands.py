"""The cascade's confident bands, read off a screening rule's threshold sweep (pure).

Rule (with tolerance ``tol``, default 0.05, on a labelled calibration set):

- *clearly different* below ``low``: the highest grid threshold at which, for every kind
  labelled "same", at most ``tol`` of its pairs score below it;
- *clearly same* at or above ``high``: the lowest grid threshold at which, for every kind
  labelled "different", at most ``tol`` of its pairs score at or above it;
- if the classes are so well apart that ``low > high``, the band is the empty interval at the
  midpoint (rounded down to the grid): every pair is decided by the screen.

Everything in ``[low, high)`` goes to the LLM judge. Per-kind (not pooled) shares keep one
hard kind from hiding behind easy ones.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

DEFAULT_TOLERANCE = 0.05


def bands_from_sweep(sweep: pd.DataFrame, kind_same: Mapping[str, bool],
                     tolerance: float = DEFAULT_TOLERANCE) -> tuple[float, float]:
    """``(low, high)`` from a :func:`~tribunal.eval.equiv.sweep.threshold_sweep` table.

    ``kind_same`` maps each kind column of ``sweep`` to its label (True = "same").
    """
    same_kinds = [k for k, same in kind_same.items() if same and k in sweep]
    different_kinds = [k for k, same in kind_same.items() if not same and k in sweep]
    if not same_kinds or not different_kinds:
        raise ValueError("the bands need kinds of both labels in the sweep")
    thresholds = sweep["threshold"].to_numpy()
    # share judged different at t = share scoring below t
    slack = tolerance + 1e-9  # shares are ratios of counts: 0.95 must pass a 0.05 tolerance
    safe_low = np.all([sweep[k].to_numpy() <= slack for k in same_kinds], axis=0)
    safe_high = np.all([1.0 - sweep[k].to_numpy() <= slack for k in different_kinds], axis=0)
    low = float(thresholds[safe_low].max()) if safe_low.any() else float(thresholds.min())
    high = float(thresholds[safe_high].min()) if safe_high.any() else float(thresholds.max())
    if low > high:
        step = float(np.min(np.diff(thresholds))) if len(thresholds) > 1 else 0.0
        middle = (low + high) / 2
        middle = float(thresholds[thresholds <= middle + 1e-9].max()) if step else middle
        low = high = middle
    return low, high

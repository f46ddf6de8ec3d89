"""Where the cascade's screen decides alone, and how its band is read off the calibration seeds (pure).

Routing (:func:`screen_route`). A screen that records *evidence* (the chain rule,
:mod:`~tribunal.eval.equiv.chain_evidence`) decides:

- ``different`` evidence (a named or structural difference): "different";
- ``verified`` evidence (every aligned step names the same things): "same";
- ``open`` evidence (a step reworded as a whole): "same" at a score ``>= high``; "different" below
  ``low`` only if the user sets ``low`` above 0 (by default never: a low similarity may be an
  alias the encoder does not know);
- ``blocked`` evidence (a step kept with a word replaced): never alone.

A screen without evidence decides by its score alone: "same" at ``>= high``, "different" below
``low``. Everything else goes to the LLM judge.

The rule for ``high`` (:func:`screen_high`, on the labelled calibration pairs, target 0.97): the
lowest grid threshold ``t`` such that the open pairs scoring at or above ``t`` are at least 97%
labelled "same" (and there is at least one), and the screen's decisions with ``high = t'`` agree
with the labels in at least 97% for ``t`` and every grid threshold above it. When no threshold
qualifies the calibration seeds never showed a whole-step rewording that the similarity tells
apart, and ``high`` is 1.0: the similarity alone never calls a pair "same".
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

DEFAULT_TARGET = 0.97
DEFAULT_GRID = tuple(round(t, 2) for t in np.arange(0.0, 1.0001, 0.05))
ROUTES = ("screen-same", "screen-different", "judge")


def screen_route(score: float | None, evidence: str | None, low: float, high: float) -> str:
    """``screen-same``, ``screen-different`` or ``judge`` (see the module docstring)."""
    if score is None or score != score:  # unscored or NaN: the judge decides
        return "judge"
    if evidence in ("different", "verified"):
        return "screen-different" if evidence == "different" else "screen-same"
    if evidence == "blocked":
        return "judge"
    if score >= high:
        return "screen-same"
    below = score < low and (evidence is None or low > 0)
    return "screen-different" if below else "judge"


def screened_agreement(routes: Sequence[str], labels: Sequence[bool]) -> tuple[int, int]:
    """(pairs the screen decided, of them wrongly) against the labels (True = "same")."""
    decided = [(r == "screen-same", label) for r, label in zip(routes, labels) if r != "judge"]
    return len(decided), sum(said != label for said, label in decided)


def screen_high(scores: Sequence[float | None], evidence: Sequence[str | None], labels: Sequence[bool],
                target: float = DEFAULT_TARGET, grid: Sequence[float] = DEFAULT_GRID, low: float = 0.0) -> float:
    """The calibrated ``high`` (see the module docstring)."""
    def agrees(t: float) -> bool:
        decided, wrong = screened_agreement([screen_route(s, e, low, t) for s, e in zip(scores, evidence)], labels)
        return decided == 0 or (decided - wrong) / decided >= target - 1e-9

    def open_pairs_same(t: float) -> bool:
        above = [label for s, e, label in zip(scores, evidence, labels)
                 if e == "open" and s is not None and not math.isnan(s) and s >= t]
        return bool(above) and sum(above) / len(above) >= target - 1e-9

    ordered = sorted(grid)
    for k, t in enumerate(ordered):
        if open_pairs_same(t) and all(agrees(u) for u in ordered[k:]):
            return float(t)
    return 1.0

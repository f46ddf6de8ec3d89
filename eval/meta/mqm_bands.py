"""MQM bands of a segment's score: one set of cut points for every statistic that bands scores.

A band starts where a segment's penalty reaches the weight of one error of that severity in the WMT MQM
scheme (:mod:`tribunal.core.wmt_weights`: major 5, non-translation 25; GEMBA-MQM's critical is 25
too): ``none`` at 0, ``minor`` above -5, ``major`` from -5 down to above -25, ``critical`` at -25 and below.

Two views of the same cuts: :data:`BANDS` (four, the raters' agreement in
:mod:`~tribunal.eval.meta.human_ceiling`) and :data:`JUDGE_BANDS` (three, a judge against human labels in
:mod:`~tribunal.eval.meta.judge_human`: ``critical`` counts as ``major`` there, as it always has).
"""

from __future__ import annotations

import math

import numpy as np

from tribunal.core.wmt_weights import MAJOR_WEIGHT, NON_TRANSLATION_WEIGHT

BANDS = ("none", "minor", "major", "critical")
JUDGE_BANDS = BANDS[:3]
BAND_EDGES = (-NON_TRANSLATION_WEIGHT, -MAJOR_WEIGHT, 0.0)  # critical <= -25 < major <= -5 < minor < 0 <= none


def band_codes(mqm: np.ndarray) -> np.ndarray:
    """0 none, 1 minor, 2 major, 3 critical for MQM scores; -1 where NaN."""
    mqm = np.asarray(mqm, dtype=float)
    critical, major, none = BAND_EDGES
    codes = np.select([mqm >= none, mqm > major, mqm > critical, mqm <= critical], [0, 1, 2, 3], default=-1)
    return codes.astype(int)


def judge_band(score: float | None) -> str | None:
    """The three-band label of an MQM score (``critical`` as ``major``); None for an unscored item."""
    if score is None or (isinstance(score, float) and math.isnan(score)):
        return None
    _, major, none = BAND_EDGES
    return JUDGE_BANDS[0 if score >= none else 1 if score > major else 2]

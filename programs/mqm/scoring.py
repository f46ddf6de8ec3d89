"""MQM scores from error lists (pure functions). Scores are negative penalties: 0 is perfect.

WMT weights (Freitag et al., 2021; the rule itself: :mod:`tribunal.core.wmt_weights`): major 5,
minor 1, minor fluency/punctuation 0.1, non-translation 25. GEMBA-MQM keeps its own scheme: critical 25, major 5, minor 1, counting only
the first 5 errors and capping the penalty at 25.
"""

from __future__ import annotations

from typing import Iterable

from tribunal.core.wmt_weights import wmt_weight as weight_of
from tribunal.signatures.mqm.errors import DimensionError, GembaError

GEMBA_WEIGHTS = {"critical": 25.0, "major": 5.0, "minor": 1.0}  # GEMBA-MQM's own scheme (not the WMT rule)
GEMBA_MAX_ERRORS = 5
GEMBA_CAP = 25.0


def wmt_weight(error: DimensionError) -> float:
    """The WMT MQM weight of one error (:func:`tribunal.core.wmt_weights.wmt_weight` of its
    ``dimension/subcategory`` and severity)."""
    return weight_of(f"{error.dimension}/{error.subcategory}", error.severity)


def wmt_mqm_score(errors: Iterable[DimensionError]) -> float:
    """``-sum(weights)`` under the WMT scheme."""
    return -sum(wmt_weight(e) for e in errors)


def gemba_mqm_score(errors: Iterable[GembaError]) -> float:
    """GEMBA-MQM's score: the first 5 errors, critical 25 / major 5 / minor 1, capped at 25."""
    penalty = sum(GEMBA_WEIGHTS[e.severity] for e in list(errors)[:GEMBA_MAX_ERRORS])
    return -min(penalty, GEMBA_CAP)


def count_score(major: int, minor: int) -> float:
    """EAPrompt's score from its error counts: ``-(5 * major + minor)``."""
    return -(5.0 * major + 1.0 * minor)


def ape_mqm_score(errors: Iterable[GembaError]) -> float:
    """MQM-APE's score of the kept errors: critical 25, major 5, minor 1, every error, capped at 25."""
    penalty = sum(GEMBA_WEIGHTS[e.severity] for e in errors)
    return -min(penalty, GEMBA_CAP)


# ESA's 0-100 scale against MQM's penalty scale, for training and tuning only (meta-evaluation
# needs no common scale): 100 is a perfect translation (MQM 0) and 0 is no meaning preserved,
# taken as MQM -25 (one non-translation, GEMBA's cap), linear in between.
ESA_POINTS_PER_MQM_POINT = 100.0 / GEMBA_CAP


def esa_from_mqm(mqm: float) -> float:
    """An MQM score on ESA's 0-100 scale: ``max(0, 100 + 4 * mqm)`` (one major error: 80)."""
    return max(0.0, 100.0 + ESA_POINTS_PER_MQM_POINT * mqm)


def mqm_from_esa(esa: float) -> float:
    """An ESA score on MQM's scale: ``(esa - 100) / 4`` (the inverse of :func:`esa_from_mqm`)."""
    return (esa - 100.0) / ESA_POINTS_PER_MQM_POINT

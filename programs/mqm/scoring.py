"""MQM scores from error lists (pure functions). Scores are negative penalties: 0 is perfect.

WMT weights (Freitag et al., 2021): major 5, minor 1, minor fluency/punctuation 0.1,
non-translation 25. GEMBA-MQM keeps its own scheme: critical 25, major 5, minor 1, counting only
the first 5 errors and capping the penalty at 25.
"""

from __future__ import annotations

from typing import Iterable

from tribunal.signatures.mqm.errors import DimensionError, GembaError

GEMBA_WEIGHTS = {"critical": 25.0, "major": 5.0, "minor": 1.0}
GEMBA_MAX_ERRORS = 5
GEMBA_CAP = 25.0


def wmt_weight(error: DimensionError) -> float:
    """The WMT MQM weight of one error."""
    if error.subcategory == "non-translation":
        return 25.0
    if error.severity == "major":
        return 5.0
    if error.dimension == "fluency" and error.subcategory == "punctuation":
        return 0.1
    return 1.0


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

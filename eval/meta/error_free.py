"""WMT26's third subtask, detection of error-free segments: the gold rule and the conversions to it.

The task (www2.statmt.org/wmt26/mteval-subtask3.html, published 2026-04-29): a binary label per
translation, 1 error-free, 0 contains errors, no reference allowed. **Gold** (the page's rule): a
segment is error-free when its human ESA annotation "meets a score threshold, AND contains no
annotated error spans", the threshold being >= 85 (:data:`GOLD_THRESHOLD`, a setting: the page warns
it is calibration-dependent). For MQM gold tribunal takes "no error": no span of a severity other
than ``neutral`` (:func:`mqm_error_free`).

**Conversions** (the subtask converts Task 1 and Task 2 submissions automatically):

- a score (Task 2): error-free when ``score >= threshold`` (:func:`from_score`); the organisers apply
  a threshold the participant supplies, inclusive or strict (as a participant's notes on the task
  pages record; the part of the page we could read stops before the details), so the threshold
  and ``strict`` are settings, 85 inclusive by default on ESA's scale and ``0`` (no penalty) on MQM's;
- error spans (Task 1): error-free when no span is marked (:func:`from_spans`; neutral spans do not
  count). The page's exact Task 1 rule was not readable to us; "no span" is the gold's own span half;
- spans and a score together (an ESA-style judge): both halves of the gold rule (:func:`gold_rule`).

A judge's own answer (``mt evaluate``'s report, ``optimize``'s objectives: :func:`from_judgment`) takes
both halves at its scale's threshold (:data:`SCALE_THRESHOLDS`): no error span and ``score >= 85`` on
ESA's scale, ``score >= 0`` on MQM's. For an MQM span judge the score half follows from the span half
(its score is minus its spans' penalties), for a score-only judge the span half is empty, and the
binary ``error-free`` judge's score (100 error-free, 0 not) is its own answer.

Severities are those of :class:`~tribunal.core.rating.ErrorSpan` (lower-case strings).
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Sequence

import numpy as np

from tribunal.core.rating import ErrorSpan, Rating

GOLD_THRESHOLD = 85.0
NOT_ERRORS = frozenset({"neutral", "no-error"})
SCALE_THRESHOLDS = {"esa": GOLD_THRESHOLD, "mqm": 0.0}
"""A judge score's error-free threshold by its scale (ESA 0-100; MQM penalties, 0 = no error)."""


def _errors(spans: Iterable[Any]) -> int:
    """Spans (:class:`ErrorSpan` or dicts with a ``severity``) that mark an error (neutral ones do not)."""
    return sum(1 for s in spans if str(_severity(s) or "").lower() not in NOT_ERRORS)


def gold_rule(score: float, spans: Sequence[ErrorSpan] | None, threshold: float = GOLD_THRESHOLD) -> float:
    """1.0 error-free (score >= threshold and no error span), 0.0 not, NaN when unrated or unscored."""
    if spans is None or score is None or math.isnan(score):
        return math.nan
    return float(score >= threshold and _errors(spans) == 0)


def mqm_error_free(rating: Rating) -> float:
    """An MQM rating's label: 1.0 when it marks no error (neutral spans aside), NaN when unrated."""
    return math.nan if rating is None else float(_errors(rating) == 0)


def from_spans(spans: Sequence[ErrorSpan] | None) -> float:
    """A span prediction converted: 1.0 when it marks no error span (Task 1 -> Task 3)."""
    return mqm_error_free(spans)


def from_score(scores: np.ndarray, threshold: float = GOLD_THRESHOLD, strict: bool = False) -> np.ndarray:
    """Scores converted: 1.0 where ``score >= threshold`` (``>`` when ``strict``), NaN where unscored."""
    scores = np.asarray(scores, float)
    passed = scores > threshold if strict else scores >= threshold
    return np.where(np.isnan(scores), np.nan, passed.astype(float))


def labels_of(scores: np.ndarray, ratings: list[Rating], threshold: float = GOLD_THRESHOLD) -> np.ndarray:
    """The gold rule cell by cell over aligned ``scores`` and ``ratings`` (spans)."""
    return np.array([gold_rule(float(s), r, threshold) for s, r in zip(scores, ratings)], float)


def mqm_labels(ratings: list[Rating]) -> np.ndarray:
    """MQM gold (or a span prediction converted) cell by cell."""
    return np.array([mqm_error_free(r) for r in ratings], float)


def from_judgment(errors: Iterable[Any] | None, score: float | None, scale: str | None = "mqm",
                  threshold: float | None = None) -> float:
    """A judge's answer converted: 1.0 when it marks no error and its score passes its scale's threshold
    (``threshold`` overrides it), NaN when it has no score or an unknown scale. ``errors``: dicts or objects with a ``severity``."""
    if score is None or isinstance(score, bool) or math.isnan(float(score)):
        return math.nan
    cut = SCALE_THRESHOLDS.get(scale or "mqm") if threshold is None else threshold
    if cut is None:  # a scale without a threshold: no label rather than a guess
        return math.nan
    return float(float(score) >= cut and _errors(errors or ()) == 0)


def _severity(error: Any) -> Any:
    return error.get("severity") if isinstance(error, dict) else getattr(error, "severity", None)

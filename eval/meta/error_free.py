"""WMT26's third subtask, detection of error-free segments: the gold rule and the conversions to it.

**What the task pages say** (read in the stored copies; each page's text stops at the opening of its
"Submissions" section, so the conversion rules themselves were not readable):

- https://www2.statmt.org/wmt26/mteval-subtask3.html (2026-04-29): "Participants must predict a
  binary label (1 for Error-Free, 0 for Contains Errors) ... we do not allow use of reference
  translations"; the gold: "a segment is labeled as error-free if: It meets a score threshold, AND It
  contains no annotated error spans. ... we set the score threshold to ≥85. Participants are advised
  that such threshold is sensitive to different annotation and score calibration schema, and should
  not be used to convert scores from other sources to binary labels without verification." Its
  Submissions section begins "Thresholding QE Scores: If you are participating in the main Task 1
  and 2, we will convert" and the stored text ends there.
- https://www2.statmt.org/wmt26/mteval-subtask1.html: "Submissions to this task will automatically
  be converted to participate in Task 2 (Segment-Level Quality Score Prediction) and Task 3
  (Detection of Error-Free Segments). See the “Submissions” section below for details." (not stored).
- https://www2.statmt.org/wmt26/mteval-subtask2.html: "Submissions to Task 1 ... will by default be
  converted to participate in this score-prediction task. Submissions to this task will by default be
  converted to participate in Task 3" (its Submissions section is not stored either).
- Secondary, a participant's notes of the pages (ogulcansarioglu/wmt26-task3, ``docs/task_facts.md``,
  2026-07-16/20): Task 2 submissions "are auto-evaluated on Task 3 using a participant-supplied
  custom threshold (participant chooses value and strict ``>`` vs inclusive ``≥`` semantics). Opt-out
  possible"; the threshold is "declared in the Codabench UI at submission time". It says nothing of
  Task 1's conversions.

**Gold** (the page's rule, :func:`gold_rule`): error-free when the ESA score is >= 85
(:data:`GOLD_THRESHOLD`, a setting) and no error span is marked. For MQM gold tribunal takes "no
error": no span of a severity other than ``neutral`` (:func:`mqm_error_free`; tribunal's choice).

**Conversions** (``[page]``: as documented; ``[tribunal]``: tribunal's reading where the rule was not
readable):

- a score (Task 2 -> Task 3, :func:`from_score`) ``[page, via the participant's notes]``: error-free
  when ``score >= threshold`` (``>`` when ``strict``), the threshold and its strictness the
  participant's; ``[tribunal]`` defaults: 85 inclusive on ESA's scale (the gold's own cut, which the
  page warns is calibration-dependent) and ``0`` (no penalty) on MQM's;
- error spans (Task 1 -> Task 3, :func:`from_spans`) ``[tribunal]``: error-free when no error span
  is marked (neutral spans do not count), the gold's own span half. The page's rule (direct, or via
  a Task 2 score and a threshold) was not readable;
- spans and a score together (an ESA-style judge, :func:`gold_rule` / :func:`labels_of`)
  ``[tribunal]``: both halves of the gold rule;
- error spans to a Task 2 score (Task 1 -> Task 2) ``[not readable]``: tribunal has no such
  conversion; a span judge's score is its own scoring rule (WMT MQM weights, GEMBA's), not WMT26's.

A judge's own answer (``mt evaluate``'s report, ``optimize``'s objectives: :func:`from_judgment`) takes
both halves at its scale's threshold (:data:`SCALE_THRESHOLDS`): no error span and ``score >= 85`` on
ESA's scale, ``score >= 0`` on MQM's. For an MQM span judge the score half follows from the span half
(its score is minus its spans' penalties), for a score-only judge the span half is empty, and the
binary ``error-free`` judge's score (100 error-free, 0 not) is its own answer.

Severities are those of :class:`~tribunal.core.spans.Span` (lower-case strings).
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Sequence

import numpy as np

from tribunal.core.rating import Rating
from tribunal.core.spans import Span

GOLD_THRESHOLD = 85.0
NOT_ERRORS = frozenset({"neutral", "no-error"})
SCALE_THRESHOLDS = {"esa": GOLD_THRESHOLD, "mqm": 0.0}
"""A judge score's error-free threshold by its scale (ESA 0-100; MQM penalties, 0 = no error)."""


def _errors(spans: Iterable[Any]) -> int:
    """Spans (:class:`Span` or dicts with a ``severity``) that mark an error (neutral ones do not)."""
    return sum(1 for s in spans if str(_severity(s) or "").lower() not in NOT_ERRORS)


def gold_rule(score: float, spans: Sequence[Span] | None, threshold: float = GOLD_THRESHOLD) -> float:
    """1.0 error-free (score >= threshold and no error span), 0.0 not, NaN when unrated or unscored."""
    if spans is None or score is None or math.isnan(score):
        return math.nan
    return float(score >= threshold and _errors(spans) == 0)


def mqm_error_free(rating: Rating) -> float:
    """An MQM rating's label: 1.0 when it marks no error (neutral spans aside), NaN when unrated."""
    return math.nan if rating is None else float(_errors(rating) == 0)


def from_spans(spans: Sequence[Span] | None) -> float:
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

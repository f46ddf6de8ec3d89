"""The four span measures: what a matched pair of spans is worth, and what a span counts for.

After Perrella, Morales Agostinho & Zaragoza (2026), "Span-Level Machine Translation
Meta-Evaluation" (arXiv:2603.19921), and the code released with it
(``mt_evaluation/meta_evaluation/span_level``, Amazon, CC-BY-NC-4.0; read, not copied):

- ``em`` (exact match): a predicted span and a gold span agree only with identical offsets;
  credit 1, else 0. Each span counts 1.
- ``mp`` (match with partial overlap, binary credit): one shared character is a full match;
  credit 1. Each span counts 1.
- ``mpp`` (match with partial overlap and partial credit): a predicted span earns the share of
  its own characters it shares with its gold match, ``overlap / len(predicted)`` (precision side);
  a gold span earns ``overlap / len(gold)`` (recall side). Each span counts 1.
- ``wmt25`` (character counts, the measure of the WMT25 error-span subtask as Perrella et al.
  re-implement it, their "w25"): credit is the number of shared characters on both sides, and a span
  counts its length, so precision = matched characters / predicted characters and recall =
  matched characters / gold characters.

Severity (both papers' convention): the credit of a pair whose severities differ is multiplied by
``1 - severity_penalty``. Severity weights (tribunal's option, the WMT25 task page names a
"severity weighted F1" without a definition we could find): a span's credit *and* its count are
multiplied by the weight of its own severity (a predicted span by the predicted severity, a gold span
by the gold one), so a weight-5 major error moves precision and recall five times as much as a
weight-1 minor one, and a weight-0 severity is left out entirely.

The matching objective (what an optimal one-to-one assignment maximises) is Perrella et al.'s:
1 for an identical pair (em), 1 for an overlapping pair (mp), the pair's Dice overlap
``2 * overlap / (len(p) + len(g))`` (mpp), shared characters (wmt25); times the severity factor.
"""

from __future__ import annotations

from typing import Callable

from tribunal.core.spans import Span

PairValue = Callable[[Span, Span], float]


def _identical(p: Span, g: Span) -> float:
    return 1.0 if (p.start, p.end, p.side) == (g.start, g.end, g.side) else 0.0


def _overlapping(p: Span, g: Span) -> float:
    return 1.0 if p.overlap(g) > 0 else 0.0


def _dice(p: Span, g: Span) -> float:
    return 2 * p.overlap(g) / (p.length + g.length)


def _shared_chars(p: Span, g: Span) -> float:
    return float(p.overlap(g))


OBJECTIVE: dict[str, PairValue] = {"em": _identical, "mp": _overlapping, "mpp": _dice, "wmt25": _shared_chars}
"""What an optimal (or greedy) one-to-one assignment maximises, before the severity factor."""

PREDICTED_CREDIT: dict[str, PairValue] = {
    "em": _identical, "mp": _overlapping, "mpp": lambda p, g: p.overlap(g) / p.length, "wmt25": _shared_chars}
"""Credit of a matched predicted span ``p`` (precision side), before severity."""

GOLD_CREDIT: dict[str, PairValue] = {
    "em": _identical, "mp": _overlapping, "mpp": lambda p, g: p.overlap(g) / g.length, "wmt25": _shared_chars}
"""Credit of a matched gold span ``g`` (recall side), before severity."""


def unit(measure: str, s: Span) -> float:
    """What one span counts for in the denominator: 1, or its length for ``wmt25``."""
    return float(s.length) if measure == "wmt25" else 1.0


def severity_factor(p: Span, g: Span, penalty: float) -> float:
    """1 for equal severities, ``1 - penalty`` otherwise."""
    return 1.0 if p.severity == g.severity else 1.0 - penalty

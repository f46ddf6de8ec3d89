"""The four span measures: what a matched pair of spans earns, and what a span counts for.

After Perrella, Morales Agostinho & Zaragoza (2026), "Span-Level Machine Translation
Meta-Evaluation" (arXiv:2603.19921), computed as the authors' code computes them
(sted19/span-mt-metrics-eval at b55b90f; read, not copied). For a matched pair ``p`` (predicted),
``g`` (gold) with ``o`` shared characters and the pair's *mass* ``c`` (below):

- ``em``: a pair earns ``c`` on both sides if the offsets are identical, else 0; a span counts 1;
- ``mp``: a pair earns ``c`` on both sides; a span counts 1;
- ``mpp``: the predicted span earns ``c * o / len(p)`` (precision side), the gold span
  ``c * o / len(g)`` (recall side); a span counts 1, or its weight with severity weights;
- ``wmt25``: a pair earns ``c * o`` characters on both sides; a span counts its length.

The mass ``c`` of a pair: 1 for equal severities, ``1 - severity_penalty`` for different ones (the
penalty's reward); with severity weights (``mpp`` only), ``min(weight(p), weight(g))`` — so a
pair is worth at most the lighter of its two severities, and a span's count is its own weight.
"""

from __future__ import annotations

from typing import Callable

from tribunal.core.spans import Span
from tribunal.eval.meta.spans.options import SpanOptions

PairValue = Callable[[Span, Span], float]


def dice(p: Span, g: Span) -> float:
    """``2 * overlap / (len(p) + len(g))`` (0 across sides), the greedy ranking of every measure."""
    shared = p.overlap(g)
    return 0.0 if shared == 0 else 2 * shared / (p.length + g.length)


def severity_reward(p: Span, g: Span, penalty: float) -> float:
    """1 for equal severities (or no penalty), ``1 - penalty`` otherwise."""
    if penalty == 0.0:
        return 1.0
    return 1.0 if p.severity == g.severity else 1.0 - penalty


def pair_mass(options: SpanOptions) -> PairValue:
    """The mass ``c`` of a pair under ``options`` (module docstring)."""
    if options.severity_weights is None:
        penalty = options.severity_penalty
        return lambda p, g: severity_reward(p, g, penalty)
    weight = options.weight
    return lambda p, g: min(weight(p.severity), weight(g.severity))


def _identical(p: Span, g: Span) -> bool:
    return (p.side, p.start, p.end) == (g.side, g.start, g.end)


def pair_credit(measure: str, p: Span, g: Span, mass: float) -> tuple[float, float]:
    """(credit of ``p`` on the precision side, credit of ``g`` on the recall side) of a matched pair."""
    if measure == "em":
        credit = mass if _identical(p, g) else 0.0
        return credit, credit
    if measure == "mp":
        return mass, mass
    shared = p.overlap(g)
    if measure == "mpp":
        return shared / p.length * mass, shared / g.length * mass
    return shared * mass, shared * mass


def optimal_objective(measure: str, mass: PairValue) -> PairValue:
    """What an optimal assignment maximises for ``em``, ``mp``, ``wmt25``: the pair's (shared) credit.

    Their F grows with the summed credit, so the assignment problem solves them exactly; ``mpp``
    is searched for its F directly (:mod:`~tribunal.eval.meta.spans.mpp_search`)."""
    if measure == "em":
        return lambda p, g: mass(p, g) if _identical(p, g) else 0.0
    if measure == "mp":
        return lambda p, g: mass(p, g) if p.overlap(g) > 0 else 0.0
    return lambda p, g: float(p.overlap(g)) * mass(p, g)


def unit(measure: str, s: Span, options: SpanOptions) -> float:
    """What one span counts for: its length (``wmt25``), its weight (``mpp`` with weights), else 1."""
    if measure == "wmt25":
        return float(s.length)
    return options.weight(s.severity) if measure == "mpp" else 1.0

"""Many-to-many coverage: each span is judged against *all* the other side's spans at once.

No assignment: a predicted span is credited by the gold spans it touches, however many, and a gold
span by the predicted spans that touch it (several predicted spans may share one gold span). This
is Perrella et al.'s (2026) "without error matching" setting in the form their code uses when
spans of one side do not overlap each other: with ``covered`` the characters of the span inside
the union of the other side's spans, and ``covered_same`` those inside the union of the other side's
spans *of the same severity*,

- ``em``: 1 if the other side has an identical span (1 - penalty if none of them has its severity);
- ``mp``: 1 if ``covered > 0`` (1 - penalty if ``covered_same == 0``);
- ``mpp``: ``(covered_same + (covered - covered_same) * (1 - penalty)) / len(span)``;
- ``wmt25``: ``covered_same + (covered - covered_same) * (1 - penalty)`` characters.

Where one side's spans overlap each other, their code splits each character's credit among the
overlapping spans; tribunal does not (documented choice): each span is credited on its own.
"""

from __future__ import annotations

from typing import Sequence

from tribunal.core.spans import Span


def _union(spans: Sequence[Span]) -> list[tuple[int, int]]:
    merged: list[list[int]] = []
    for s in sorted(spans, key=lambda s: s.start):
        if merged and s.start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], s.end)
        else:
            merged.append([s.start, s.end])
    return [(a, b) for a, b in merged]


def _covered(s: Span, union: list[tuple[int, int]]) -> int:
    return sum(max(0, min(s.end, b) - max(s.start, a)) for a, b in union)


def coverage_credit(measure: str, s: Span, others: Sequence[Span], penalty: float) -> float:
    """Credit of span ``s`` against every span of ``others`` on its side (before its weight)."""
    same_side = [o for o in others if o.side == s.side]
    if measure == "em":
        identical = [o for o in same_side if (o.start, o.end) == (s.start, s.end)]
        if not identical:
            return 0.0
        return 1.0 if any(o.severity == s.severity for o in identical) else 1.0 - penalty
    covered = _covered(s, _union(same_side))
    covered_same = _covered(s, _union([o for o in same_side if o.severity == s.severity]))
    chars = covered_same + (covered - covered_same) * (1.0 - penalty)
    if measure == "mp":
        return 0.0 if covered == 0 else (1.0 if covered_same > 0 else 1.0 - penalty)
    if measure == "mpp":
        return chars / s.length
    return chars

"""Many-to-many coverage: every span is judged against all the other side's spans, character by character.

No pairs are chosen. As in the authors' code, each character of a side holds, per severity, the
number of predicted spans covering it and the number of gold spans covering it (with severity
weights: their summed weights). That mass is matched per character:

- *exact*: ``min(predicted, gold)`` of each severity;
- *mismatch*: what is left on each side is matched across severities up to the smaller remainder,
  shared out over a side's severities in proportion to their remainders;
- the rest is unmatched.

A span's credit is read from its own side's layers (a predicted span from the predicted mass, a gold
span from the gold mass) and from its own severity's layer, so a character covered by two spans of
one side gives each its share:

- ``mpp``: ``mean over the span's characters of (exact + (1 - penalty) * mismatch) / covering mass``,
  times its weight with severity weights (there mismatch earns in full: the weights price it);
- ``wmt25``: one shared count of characters, ``exact + (1 - penalty) * mismatch`` summed over the
  side; precision divides it by the predicted spans' total length, recall by the gold spans';
- ``mp``: 1 if any gold span touches the predicted span (1 - penalty if none of the same severity
  does), and the same for gold spans;
- ``em``: identical offsets matched as multisets: per offset pair, ``min`` of each severity, then the
  rest across severities at ``1 - penalty``.

tribunal computes the layers on the intervals between consecutive span boundaries (the mass is
constant there) rather than on single characters; the figures are the same.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable, Sequence

from tribunal.core.spans import Span

Weight = Callable[[str], float]
Layers = list[tuple[int, int, dict[str, float], dict[str, float], dict[str, float], dict[str, float]]]
"""Per interval ``[a, b)``: predicted mass, gold mass, and the matched (exact + weighted mismatch) mass of each
side, by severity; the matched mass is ``exact + share * mismatch`` with ``share`` the mismatch's worth."""


def _mass(spans: Sequence[Span], a: int, weight: Weight) -> dict[str, float]:
    out: dict[str, float] = {}
    for s in spans:
        if s.start <= a < s.end:
            out[s.severity] = out.get(s.severity, 0.0) + weight(s.severity)
    return out


def _matched(mine: dict[str, float], theirs: dict[str, float], share: float) -> dict[str, float]:
    exact = {k: min(v, theirs.get(k, 0.0)) for k, v in mine.items()}
    left_mine = {k: v - exact[k] for k, v in mine.items()}
    total_mine = sum(left_mine.values())
    total_theirs = sum(v - min(v, mine.get(k, 0.0)) for k, v in theirs.items())
    across = min(total_mine, total_theirs)
    if across <= 0:
        return exact
    return {k: exact[k] + share * left_mine[k] * (across / total_mine) for k in mine}


def layers(predicted: Sequence[Span], gold: Sequence[Span], share: float, weight: Weight) -> Layers:
    """The matched mass of one side's spans (all on that side) on each interval between span boundaries."""
    cuts = sorted({x for s in (*predicted, *gold) for x in (s.start, s.end)})
    out: Layers = []
    for a, b in zip(cuts, cuts[1:]):
        pm, gm = _mass(predicted, a, weight), _mass(gold, a, weight)
        if pm or gm:
            out.append((a, b, pm, gm, _matched(pm, gm, share), _matched(gm, pm, share)))
    return out


def span_share(s: Span, side_layers: Layers, predicted_side: bool) -> float:
    """Mean over ``s``'s characters of its severity's matched mass / covering mass, on its own side."""
    total = 0.0
    for a, b, pm, gm, p_matched, g_matched in side_layers:
        if b <= s.start or a >= s.end:
            continue
        mass, matched = (pm, p_matched) if predicted_side else (gm, g_matched)
        if mass.get(s.severity, 0.0) > 0:
            total += (b - a) * matched[s.severity] / mass[s.severity]
    return total / s.length


def mpp_credits(predicted: Sequence[Span], gold: Sequence[Span], penalty: float, weight: Weight,
                weighted: bool) -> tuple[float, float]:
    """(precision credit, recall credit) of many-to-many MPP."""
    share = 1.0 if weighted else 1.0 - penalty
    tp_p = tp_r = 0.0
    for side in {s.side for s in (*predicted, *gold)}:
        pred = [s for s in predicted if s.side == side]
        ref = [s for s in gold if s.side == side]
        side_layers = layers(pred, ref, share, weight)
        tp_p += sum(weight(s.severity) * span_share(s, side_layers, True) for s in pred)
        tp_r += sum(weight(s.severity) * span_share(s, side_layers, False) for s in ref)
    return tp_p, tp_r


def wmt25_matched_characters(predicted: Sequence[Span], gold: Sequence[Span], penalty: float) -> float:
    """Characters matched in many-to-many WMT25 (one count for precision and recall)."""
    total = 0.0
    for side in {s.side for s in (*predicted, *gold)}:
        pred = [s for s in predicted if s.side == side]
        ref = [s for s in gold if s.side == side]
        for a, b, _, _, p_matched, _ in layers(pred, ref, 1.0 - penalty, lambda _: 1.0):
            total += (b - a) * sum(p_matched.values())
    return total


def mp_credit(s: Span, others: Sequence[Span], penalty: float) -> float:
    """1 if ``s`` touches a span of ``others`` (``1 - penalty`` if none of its severity), else 0."""
    touching = [o for o in others if o.overlap(s) > 0]
    if not touching:
        return 0.0
    return 1.0 if any(o.severity == s.severity for o in touching) else 1.0 - penalty


def em_matched(predicted: Sequence[Span], gold: Sequence[Span], penalty: float) -> float:
    """Identical offsets matched as multisets, severity first (one count for precision and recall)."""
    groups: dict[tuple, tuple[Counter, Counter]] = {}
    for k, spans in enumerate((predicted, gold)):
        for s in spans:
            groups.setdefault((s.side, s.start, s.end), (Counter(), Counter()))[k][s.severity] += 1
    total = 0.0
    for pred, ref in groups.values():
        exact = sum(min(pred[k], ref[k]) for k in pred)
        across = min(sum(pred.values()) - exact, sum(ref.values()) - exact)
        total += exact + (1.0 - penalty) * across
    return total

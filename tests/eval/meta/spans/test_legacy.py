"""The legacy figures are the family's measures (WMT25 on character unions, MP; many-to-many) with its
empty-side convention: where the pre-issue-43 formulas were defined, the same numbers to the last digit."""

import math
import random

import pytest

from tribunal.core.spans import Span, span
from tribunal.eval.meta.spans import SpanOptions, score_segments
from tribunal.eval.meta.spans.legacy import character_union, legacy_scores


def error(start, end, source=False, severity="major"):
    return Span(start, end, severity, "source" if source else "target", category="accuracy/mistranslation")


def old_formulas(cells):
    """The pre-issue-43 pooled formulas (character sets, shared-character span matches), NaN on an empty side."""
    tot = dict.fromkeys(("co", "cp", "cg", "sc", "sp", "sf", "sg"), 0)
    for pred, gold in cells:
        pred = [s for s in pred if s.end > s.start and not s.is_source_error]
        gold = [s for s in gold if s.end > s.start and not s.is_source_error]
        p = {c for s in pred for c in range(s.start, s.end)}
        g = {c for s in gold for c in range(s.start, s.end)}
        touch = lambda a, b: a.start < b.end and b.start < a.end  # noqa: E731
        tot["co"] += len(p & g); tot["cp"] += len(p); tot["cg"] += len(g)  # noqa: E702
        tot["sc"] += sum(any(touch(x, y) for y in gold) for x in pred); tot["sp"] += len(pred)  # noqa: E702
        tot["sf"] += sum(any(touch(y, x) for x in pred) for y in gold); tot["sg"] += len(gold)  # noqa: E702
    ratio = lambda a, b: a / b if b else math.nan  # noqa: E731

    def f1(p, r):
        return math.nan if math.isnan(p) or math.isnan(r) else (2 * p * r / (p + r) if p + r else 0.0)

    cp, cr, sp, sr = ratio(tot["co"], tot["cp"]), ratio(tot["co"], tot["cg"]), ratio(tot["sc"], tot["sp"]), \
        ratio(tot["sf"], tot["sg"])
    return {"char_precision": cp, "char_recall": cr, "char_f1": f1(cp, cr),
            "span_precision": sp, "span_recall": sr, "span_f1": f1(sp, sr)}


def test_hand_computed_two_cells():
    # cell 1: predicted [0,10) vs gold [5,15): 5 shared chars; spans overlap.
    # cell 2: predicted [0,4) and [20,22); gold [30,40): nothing shared.
    scores = legacy_scores([([error(0, 10)], [error(5, 15)]), ([error(0, 4), error(20, 22)], [error(30, 40)])])
    assert scores["char_precision"] == 5 / 16 and scores["char_recall"] == 5 / 20
    assert scores["char_f1"] == pytest.approx(2 * (5 / 16) * (5 / 20) / (5 / 16 + 5 / 20))
    assert (scores["span_precision"], scores["span_recall"]) == (1 / 3, 1 / 2)
    assert (scores["spans_predicted"], scores["spans_gold"], scores["cells"]) == (3, 2, 2)


def test_overlapping_predictions_count_characters_once():
    assert character_union([error(3, 8), error(0, 6), error(10, 12, source=True)]) == [Span(0, 8)]
    scores = legacy_scores([([error(0, 6), error(3, 8)], [error(0, 8)])])
    assert scores["char_precision"] == 1.0 and scores["span_precision"] == 1.0


def test_empty_sides_follow_the_family_convention():
    nothing = legacy_scores([([error(2, 2)], [error(0, 5, source=True), error(7, 7)])])  # nothing countable
    assert nothing["spans_predicted"] == nothing["spans_gold"] == 0
    assert (nothing["char_precision"], nothing["char_recall"], nothing["char_f1"]) == (1.0, 1.0, 1.0)
    clean = legacy_scores([([], [error(0, 5)])])  # nothing predicted on an erroneous segment
    assert (clean["char_precision"], clean["char_recall"], clean["char_f1"]) == (1.0, 0.0, 0.0)
    assert (clean["span_precision"], clean["span_recall"], clean["span_f1"]) == (1.0, 0.0, 0.0)
    assert all(math.isnan(legacy_scores([])[k]) for k in ("char_f1", "span_f1"))  # no cell: nothing measured


def test_adjacent_spans_do_not_overlap():
    assert legacy_scores([([error(0, 5)], [error(5, 9)])])["span_precision"] == 0.0


def test_the_old_figures_wherever_they_were_defined():
    rng = random.Random(43)
    for _ in range(300):
        cells = []
        for _ in range(rng.randrange(1, 6)):
            sides = [[error(a, a + rng.randrange(0, 9), rng.random() < 0.2, rng.choice(["minor", "major"]))
                      for a in (rng.randrange(0, 30) for _ in range(rng.randrange(0, 4)))] for _ in range(2)]
            cells.append(tuple(sides))
        new, old = legacy_scores(cells), old_formulas(cells)
        for key, value in old.items():
            if math.isnan(value):
                assert not math.isnan(new[key])  # the empty-side convention defines it
            else:
                assert new[key] == value, key  # byte-identical where it was defined


def test_span_level_is_many_to_many_mp():
    rng = random.Random(30)
    for _ in range(50):
        segments = [tuple([span(a, a + rng.randrange(1, 9)) for a in (rng.randrange(0, 30) for _ in
                                                                      range(rng.randrange(0, 4)))] for _ in range(2))
                    for _ in range(5)]
        mp = score_segments(segments, SpanOptions(measure="mp", matching="many-to-many"))
        scores = legacy_scores(segments)
        assert (scores["span_precision"], scores["span_recall"], scores["span_f1"]) == (mp.precision, mp.recall, mp.f)

"""Worked examples for every measure and option; each expected value is computed by hand in the comment."""

import pytest

from tribunal.core.spans import span
from tribunal.eval.meta.spans import SpanOptions, score_segments

# gold: G1 = [0,10) major, G2 = [20,25) minor; predicted: P1 = [5,15) major, P2 = [20,25) minor, P3 = [30,32) minor.
# P1 and G1 share 5 characters (5..9); P2 and G2 are identical; P3 touches nothing.
GOLD = [span(0, 10, "major"), span(20, 25, "minor")]
PRED = [span(5, 15, "major"), span(20, 25, "minor"), span(30, 32, "minor")]


def f(p, r):
    return 2 * p * r / (p + r)


def score(pred=PRED, gold=GOLD, **options):
    return score_segments([(pred, gold)], SpanOptions(**options))


@pytest.mark.parametrize("measure, precision, recall", [
    ("em", 1 / 3, 1 / 2),            # only P2 = G2 counts: 1 of 3 predicted, 1 of 2 gold
    ("mp", 2 / 3, 2 / 2),            # P1~G1 and P2~G2 overlap: 2 of 3, 2 of 2
    ("mpp", (5 / 10 + 1) / 3,        # P1 earns 5/len(P1)=0.5, P2 earns 1, P3 0
     (5 / 10 + 1) / 2),              # G1 earns 5/len(G1)=0.5, G2 earns 1
    ("wmt25", 10 / 17, 10 / 15),     # 5 + 5 shared characters; 10+5+2 predicted, 10+5 gold characters
])
def test_each_measure_by_hand(measure, precision, recall):
    s = score(measure=measure)
    assert s.precision == pytest.approx(precision, abs=1e-12)
    assert s.recall == pytest.approx(recall, abs=1e-12)
    assert s.f == pytest.approx(f(precision, recall), abs=1e-12)


def test_default_is_micro_mpp_optimal_one_to_one_target_side():
    assert SpanOptions().signature() == "m:mpp|match:1-1|assign:optimal|avg:micro|sevpen:0|sevw:none|side:target|v:2"
    assert score().f == pytest.approx(f(0.5, 0.75))  # MPP above: P = 1.5/3, R = 1.5/2


def test_severity_penalty_scales_a_mismatched_pair():
    pred = [span(5, 15, "minor"), span(20, 25, "minor"), span(30, 32, "minor")]  # P1 now minor against major G1
    s = score(pred, severity_penalty=0.5)
    assert s.precision == pytest.approx((0.5 * 0.5 + 1) / 3)  # P1's 0.5 halved
    assert s.recall == pytest.approx((0.5 * 0.5 + 1) / 2)
    full = score(pred, severity_penalty=1.0, measure="mp")  # penalty 1: a mismatch is no match at all
    assert (full.precision, full.recall) == pytest.approx((1 / 3, 1 / 2))


def test_severity_weights_price_a_pair_at_its_lighter_severity():
    weights = {"minor": 1, "major": 5}
    s = score(severity_weights=weights)
    # pairs P1~G1 (major-major: mass 5) and P2~G2 (minor-minor: 1); P1 earns 5 * 5/10, P2 1, P3 0;
    # a span counts its own weight: predicted 5 + 1 + 1, gold 5 + 1
    assert (s.precision, s.recall) == pytest.approx((3.5 / 7, 3.5 / 6))
    pred = [span(5, 15, "minor"), span(20, 25, "minor"), span(30, 32, "minor")]  # P1 now minor against major G1
    mixed = score(pred, severity_weights=weights)
    # P1~G1 is worth min(1, 5) = 1 on both sides: P = (1 * 0.5 + 1) / 3, R = (1 * 0.5 + 1) / (5 + 1)
    # (the old reading gave the gold span its own weight: R = (5 * 0.5 + 1) / 6)
    assert (mixed.precision, mixed.recall) == pytest.approx((1.5 / 3, 1.5 / 6))
    zero = score(severity_weights={"minor": 0, "major": 1})  # a weight of 0 leaves minor spans out
    assert (zero.precision, zero.recall) == pytest.approx((0.5, 0.5))


def test_severity_options_the_authors_code_refuses_are_refused():
    with pytest.raises(ValueError, match="mpp measure only"):
        SpanOptions(measure="wmt25", severity_weights={"major": 5})
    with pytest.raises(ValueError, match="cannot be combined"):
        SpanOptions(severity_weights={"major": 5}, severity_penalty=0.5)
    with pytest.raises(ValueError, match="'minor'.*does not name"):
        score(severity_weights={"major": 5})
    with pytest.raises(ValueError, match="no severity.*--severity-penalty"):
        score([span(0, 3)], [span(0, 3, "major")], severity_penalty=0.5)
    assert score([span(0, 3)], [span(0, 3)]).f == 1.0  # no severity is fine where none is needed


def test_optimal_mpp_matching_maximises_f_not_summed_overlap():
    # P1 = [6,7), P2 = [8,15); G1 = [5,12), G2 = [9,10), G3 = [7,8). Pairs: P1~G1 (1 shared char),
    # P2~G1 (4), P2~G2 (1). The best summed Dice is P2~G1 alone (8/14 > 2/8 + 2/8): P = (4/7)/2,
    # R = (4/7)/3, F = 0.2286. The best F takes P1~G1 and P2~G2: precision credits 1 + 1/7,
    # recall credits 1/7 + 1: P = (8/7)/2 = 4/7, R = (8/7)/3 = 8/21, F = 64/140 = 0.4571.
    pred, gold = [span(6, 7), span(8, 15)], [span(5, 12), span(9, 10), span(7, 8)]
    s = score(pred, gold)
    assert (s.precision, s.recall, s.f) == pytest.approx((4 / 7, 8 / 21, 64 / 140))


def test_many_to_many_credits_every_touching_span():
    gold, pred = [span(0, 10)], [span(0, 4), span(6, 10)]
    one = score(pred, gold)  # one-to-one: G matches one half only: P = (1 + 0)/2, R = 4/10
    assert (one.precision, one.recall) == pytest.approx((0.5, 0.4))
    many = score(pred, gold, matching="many-to-many")  # both halves fully inside G; G covered 8/10
    assert (many.precision, many.recall) == pytest.approx((1.0, 0.8))
    chars = score(pred, gold, matching="many-to-many", measure="wmt25")  # 8 of 8 predicted chars, 8 of 10 gold
    assert (chars.precision, chars.recall) == pytest.approx((1.0, 0.8))
    assert score(pred, gold, matching="many-to-many", measure="mp").f == 1.0
    assert score(pred, gold, matching="many-to-many", measure="em").f == 0.0


def test_many_to_many_shares_a_character_among_the_spans_of_one_side_covering_it():
    gold, pred = [span(0, 10)], [span(0, 10), span(0, 10)]  # the same error predicted twice
    many = score(pred, gold, matching="many-to-many")  # each character: 2 predicted, 1 gold: each copy earns 1/2
    assert (many.precision, many.recall) == pytest.approx((0.5, 1.0))
    chars = score(pred, gold, matching="many-to-many", measure="wmt25")  # 10 matched of 20 predicted characters
    assert (chars.precision, chars.recall) == pytest.approx((0.5, 1.0))
    exact = score(pred, gold, matching="many-to-many", measure="em")  # identical offsets matched as multisets
    assert (exact.precision, exact.recall) == pytest.approx((0.5, 1.0))


def test_many_to_many_severity_penalty_on_characters_of_another_severity():
    gold = [span(0, 4, "major"), span(4, 10, "minor")]
    pred = [span(0, 10, "major")]
    s = score(pred, gold, matching="many-to-many", measure="wmt25", severity_penalty=0.5)
    assert s.precision == pytest.approx((4 + 6 * 0.5) / 10)  # 4 chars same severity, 6 of another, halved
    assert s.recall == pytest.approx((4 + 6 * 0.5) / 10)


def test_micro_and_macro_differ():
    seg1 = ([span(0, 10)], [span(0, 10)])                            # P = R = F = 1
    seg2 = ([span(0, 2), span(5, 7), span(9, 11)], [span(0, 2)])     # P = 1/3, R = 1, F = 0.5
    micro = score_segments([seg1, seg2], SpanOptions())
    assert (micro.precision, micro.recall, micro.f) == pytest.approx((2 / 4, 1.0, f(0.5, 1.0)))
    macro = score_segments([seg1, seg2], SpanOptions(averaging="macro"))
    assert (macro.precision, macro.recall, macro.f) == pytest.approx(((1 + 1 / 3) / 2, 1.0, (1 + 0.5) / 2))


def test_empty_sides_follow_the_documented_convention():
    gold_only = score([], [span(0, 3)])
    assert (gold_only.precision, gold_only.recall, gold_only.f) == (1.0, 0.0, 0.0)
    pred_only = score([span(0, 3)], [])
    assert (pred_only.precision, pred_only.recall, pred_only.f) == (0.0, 1.0, 0.0)
    neither = score([], [])
    assert (neither.precision, neither.recall, neither.f) == (1.0, 1.0, 1.0)
    assert score_segments([], SpanOptions()).f == 1.0
    omission = score([span(4, 4)], [span(0, 3)])  # a zero-length span has no characters: left out, counted
    assert omission.dropped_empty == 1 and omission.predicted_spans == 0 and omission.precision == 1.0


def test_sides_are_kept_apart():
    pred, gold = [span(0, 5, side="source")], [span(0, 5, side="target")]
    both = score(pred, gold, side="both")  # same offsets, different texts: no match
    assert (both.precision, both.recall) == (0.0, 0.0)
    target = score(pred, gold)  # target only: nothing predicted there
    assert (target.precision, target.recall) == (1.0, 0.0)
    source = score(pred, gold, side="source")
    assert (source.precision, source.recall) == (0.0, 1.0)
    assert score([span(0, 5, side="source")], [span(1, 5, side="source")], side="source").recall == pytest.approx(1.0)


def test_bad_options_are_refused():
    with pytest.raises(ValueError):
        SpanOptions(measure="f1")
    with pytest.raises(ValueError):
        SpanOptions(severity_penalty=1.5)
    with pytest.raises(ValueError):
        SpanOptions(severity_weights={"major": -1})

"""Span significance (paired permutation over segments, clusters) and the raters' ceiling."""

import pytest

from tribunal.core.spans import span
from tribunal.eval.meta.spans import SpanOptions, segment_counts
from tribunal.eval.meta.spans.agreement import rater_ceiling, vs_raters
from tribunal.eval.meta.spans.significance import clusters, paired_test

GOLD = [[span(0, 10)], [span(3, 6)], [span(0, 4), span(8, 12)], [span(5, 9)]] * 5
GOOD = [[span(0, 10)], [span(3, 6)], [span(0, 4), span(8, 12)], [span(5, 9)]] * 5
BAD = [[span(20, 22)], [], [span(30, 31)], [span(0, 1)]] * 5


def counts(pred):
    return [segment_counts(p, g, SpanOptions()) for p, g in zip(pred, GOLD)]


def test_a_clearly_better_judge_is_significantly_better():
    test = paired_test(counts(GOOD), counts(BAD), samples=500, seed=7)
    assert test.f_a == 1.0 and test.f_b == 0.0 and test.delta == 1.0
    # under swapping, F(A) - F(B) reaches 1 only when no segment is swapped: p = (1 + ~0) / 501
    assert test.p_value < 0.01
    assert test.interval[0] > 0.9


def test_a_judge_against_itself_is_not_significant_and_the_draws_are_seeded():
    test = paired_test(counts(GOOD), counts(GOOD), samples=200, seed=3)
    assert test.delta == 0.0 and test.p_value == 1.0
    assert paired_test(counts(GOOD), counts(BAD), samples=200, seed=3) == paired_test(counts(GOOD), counts(BAD),
                                                                                       samples=200, seed=3)


def test_clusters_rank_a_tie_together_and_the_bad_judge_below():
    ranking = clusters({"good": counts(GOOD), "twin": counts(GOOD), "bad": counts(BAD)}, samples=300, seed=1)
    assert ranking.judges == ["good", "twin", "bad"] and ranking.ranks == [1, 1, 2]


def test_unequal_segment_lists_are_refused():
    with pytest.raises(ValueError):
        paired_test(counts(GOOD), counts(GOOD)[:-1])


def test_rater_ceiling_scores_each_rater_against_the_others():
    raters = {"r1": {"a": [span(0, 10)], "b": [span(0, 2)]},
              "r2": {"a": [span(0, 5)], "b": [span(0, 2)]},
              "r3": {"a": [span(0, 10)]}}
    table = rater_ceiling(raters)
    # r1 vs r2 on a: P = 5/10, R = 1; on b: 1, 1; vs r3 on a: 1, 1 -> micro P = (0.5 + 1 + 1)/3, R = 1
    assert table["r1"].precision == pytest.approx(2.5 / 3) and table["r1"].recall == 1.0
    # r3 vs r1 on a: 1, 1; vs r2 on a: P = 5/10... r3 predicts [0,10) against gold [0,5): P = 0.5, R = 1
    assert table["r3"].precision == pytest.approx(1.5 / 2) and table["r3"].segments == 2
    assert table["mean"].f == pytest.approx(sum(table[r].f for r in ("r1", "r2", "r3")) / 3)
    judge = vs_raters({"a": [span(0, 5)]}, raters)  # against r1, r2, r3 on a: R = 0.5, 1, 0.5
    assert judge.recall == pytest.approx(2 / 3) and judge.precision == 1.0

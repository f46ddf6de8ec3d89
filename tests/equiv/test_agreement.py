"""Agreement statistics on known cases, including the degenerate ones."""

import math
import warnings

import pytest

from tribunal.eval.equiv.agreement import agreement


def test_known_case_by_hand():
    # p_o = 3/4; p_e = .5*.25 + .5*.75 = .5 -> kappa = .5
    # alpha (nominal): D_o = 2/8, D_e = 2*3*5/(8*7) -> alpha = 1 - .25/(30/56) = 8/15
    a = [True, False, True, False]
    b = [True, False, False, False]
    stats = agreement(a, b)
    assert stats.raw == pytest.approx(0.75)
    assert stats.kappa == pytest.approx(0.5)
    assert stats.alpha == pytest.approx(8 / 15)
    assert stats.note == ""


def test_perfect_agreement_with_both_labels():
    stats = agreement([True, False, True], [True, False, True])
    assert (stats.raw, stats.kappa, stats.alpha) == (1.0, 1.0, 1.0)


def test_both_raters_constant_and_equal_is_undefined_not_a_crash():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no division-by-zero warnings leak out either
        stats = agreement([True] * 5, [True] * 5)
    assert stats.raw == 1.0
    assert math.isnan(stats.kappa) and math.isnan(stats.alpha)
    assert "kappa undefined" in stats.note and "alpha undefined" in stats.note


def test_one_constant_rater_gives_kappa_zero():
    stats = agreement([True] * 4, [True, False, True, True])
    assert stats.kappa == pytest.approx(0.0)
    assert stats.raw == pytest.approx(0.75)
    # pooled values T:7, F:1 -> D_o = 2/8, D_e = 2*7*1/(8*7) = 2/8 -> alpha = 0
    assert stats.alpha == pytest.approx(0.0)


def test_unscored_items_are_excluded_and_nothing_in_common_is_nan():
    stats = agreement([True, None, False], [True, False, None])
    assert stats.n_both_scored == 1 and stats.raw == 1.0
    empty = agreement([None, None], [True, False])
    assert math.isnan(empty.raw) and math.isnan(empty.kappa) and math.isnan(empty.alpha)


def test_mismatched_lengths_are_refused():
    with pytest.raises(ValueError):
        agreement([True], [True, False])

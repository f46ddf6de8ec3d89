"""Error-free detection: the gold rule, each conversion and the measures, on hand-worked examples."""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pytest

from tribunal.core.spans import Span
from tribunal.eval.meta.binary_measures import bootstrap, mcc_nulls, measures
from tribunal.eval.meta.error_free import (from_judgment, from_score, from_spans, gold_rule, labels_of, mqm_error_free,
                                           mqm_labels)
from tribunal.eval.meta.error_free_job import calibrated_threshold

MINOR = Span(0, 3, "minor")
NEUTRAL = Span(0, 3, "neutral")


@pytest.mark.parametrize("score, spans, expected", [
    (90.0, (), 1.0),          # high score, no span: error-free
    (85.0, (), 1.0),          # the threshold itself passes (>= 85)
    (84.9, (), 0.0),          # below the threshold, even without a span
    (100.0, (MINOR,), 0.0),   # one minor span is an error, whatever the score
    (100.0, (NEUTRAL,), 1.0),  # a neutral mark is not an error
])
def test_gold_rule(score, spans, expected):
    assert gold_rule(score, spans) == expected


def test_gold_rule_unrated_and_threshold_setting():
    assert math.isnan(gold_rule(90.0, None)) and math.isnan(gold_rule(math.nan, ()))
    assert gold_rule(80.0, (), threshold=75) == 1.0


def test_span_conversion_and_mqm_gold():
    assert from_spans(()) == 1.0 and from_spans((MINOR,)) == 0.0 and from_spans((NEUTRAL, NEUTRAL)) == 1.0
    assert math.isnan(from_spans(None)) and mqm_error_free((Span(1, 2, "major", category="x"),)) == 0.0


@pytest.mark.parametrize("errors, score, scale, expected", [
    ([], 100.0, "esa", 1.0),                          # the error-free judge's "yes"
    ([], 0.0, "esa", 0.0),                            # ... and its "no"
    ([{"severity": "Minor"}], 95.0, "esa", 0.0),      # an ESA span judge: a span, whatever the score
    ([], 84.0, "esa", 0.0),                           # ... or a score below 85
    ([{"severity": "neutral"}], 0.0, "mqm", 1.0),     # an MQM span judge: neutral marks are no error
    ([MINOR], -1.0, "mqm", 0.0),                      # Span objects too
    ([], -0.5, "mqm", 0.0),                           # a score-only MQM judge: any penalty
])
def test_a_judgment_converts_by_both_halves_at_its_scales_threshold(errors, score, scale, expected):
    assert from_judgment(errors, score, scale) == expected


def test_a_judgment_without_a_score_or_with_an_unknown_scale_has_no_label():
    assert math.isnan(from_judgment([], None, "esa")) and math.isnan(from_judgment([], math.nan, "mqm"))
    assert math.isnan(from_judgment([], 1.0, "likert")) and from_judgment([], 1.0, "likert", threshold=1.0) == 1.0


def test_score_conversion_inclusive_strict_and_mqm_scale():
    np.testing.assert_array_equal(from_score(np.array([85, 84, np.nan]), 85), [1, 0, np.nan])
    np.testing.assert_array_equal(from_score(np.array([85, 86]), 85, strict=True), [0, 1])
    np.testing.assert_array_equal(from_score(np.array([-0.0, -0.1, -5]), 0.0), [1, 0, 0])  # MQM: no penalty


def test_measures_hand_worked():
    # gold 1 1 0 0 1, pred 1 0 0 1 1: tp 2, fp 1, fn 1, tn 1
    got = measures(np.array([1, 1, 0, 0, 1]), np.array([1, 0, 0, 1, 1]))
    assert got["precision"] == pytest.approx(2 / 3) and got["recall"] == pytest.approx(2 / 3)
    assert got["f1"] == pytest.approx(2 / 3)
    assert got["balanced_accuracy"] == pytest.approx((2 / 3 + 1 / 2) / 2)
    assert got["mcc"] == pytest.approx((2 * 1 - 1 * 1) / math.sqrt(3 * 3 * 2 * 2))
    assert got["predicted_rate"] == pytest.approx(3 / 5)
    constant = measures(np.array([1, 0, 1]), np.array([1, 1, 1]))
    assert constant["mcc"] == 0.0 and constant["recall"] == 1.0


def test_bootstrap_interval_brackets_the_value_and_nulls_are_antisymmetric_in_use():
    rng = np.random.default_rng(0)
    gold = (rng.random(400) < 0.5).astype(float)
    good = np.where(rng.random(400) < 0.8, gold, 1 - gold)
    low, high = bootstrap(gold, good, 300, 1)["mcc"]
    assert low < measures(gold, good)["mcc"] < high
    null = mcc_nulls(gold, np.array([good, 1 - good]), 200, rng)
    assert np.isnan(null[:, 1, 0]).all() and np.isfinite(null[:, 0, 1]).all()
    assert (null[:, 0, 1] < measures(gold, good)["mcc"] - measures(gold, 1 - good)["mcc"]).all()


def test_calibrated_threshold_maximises_mcc():
    assert calibrated_threshold(np.array([0, 0, 1, 1.0]), np.array([10, 20, 30, 40.0])) == 30.0


def test_gold_counts_every_annotated_span_undecided_included():
    # the page: "contains no annotated error spans"; the campaign marks some spans "undecided"
    assert gold_rule(100.0, (Span(0, 3, "undecided", ),)) == 0.0


def test_spans_with_a_score_convert_cell_by_cell_by_both_halves_of_the_rule():
    # cells: (90, none) passes; (90, a minor span) fails on the span; (70, none) fails on the score; unscored: NaN
    got = labels_of(np.array([90.0, 90.0, 70.0, np.nan]), [(), (MINOR,), (), ()])
    np.testing.assert_array_equal(got, [1.0, 0.0, 0.0, np.nan])


def test_span_predictions_convert_by_no_error_span():
    major = Span(1, 2, "major", category="x")
    np.testing.assert_array_equal(mqm_labels([(), (major, MINOR), (NEUTRAL,), None]), [1.0, 0.0, 1.0, np.nan])


def test_participant_threshold_inclusive_or_strict_at_the_cut():
    # a participant's threshold of 70: a score of exactly 70 is error-free when inclusive, not when strict
    np.testing.assert_array_equal(from_score(np.array([69.9, 70.0, 70.1]), 70.0), [0, 1, 1])
    np.testing.assert_array_equal(from_score(np.array([69.9, 70.0, 70.1]), 70.0, strict=True), [0, 0, 1])


def test_calibrated_threshold_takes_the_lowest_on_an_mcc_tie():
    # gold 0 1 0 1 over scores 10 20 30 40: t=20 -> 0 1 1 1 (tp 2, fp 1, fn 0, tn 1: MCC 2/sqrt(12));
    # t=40 -> 0 0 0 1 (tp 1, fp 0, fn 1, tn 2: MCC 2/sqrt(12)); t=10 and t=30 -> MCC 0: the tie goes to 20
    gold, scores = np.array([0, 1, 0, 1.0]), np.array([10, 20, 30, 40.0])
    assert measures(gold, from_score(scores, 20.0))["mcc"] == pytest.approx(2 / math.sqrt(12))
    assert measures(gold, from_score(scores, 40.0))["mcc"] == pytest.approx(2 / math.sqrt(12))
    assert calibrated_threshold(gold, scores) == 20.0

CAMPAIGN = Path(os.environ.get("TRIBUNAL_DATA", "/nonexistent")) / "esa-wmt23"


@pytest.mark.skipif(not (CAMPAIGN / "240315rc5ESA.scores.csv").is_file(), reason="no ESA campaign data")
def test_campaign_table_has_the_rater_ceiling_and_converted_annotations():
    from tribunal.data.mtme import LanguagePair
    from tribunal.eval.meta.error_free_job import run_error_free

    pair = LanguagePair(CAMPAIGN.parent / "wmt23", "en-de", gold="esa", human_dirs=(CAMPAIGN,))
    result = run_error_free(pair, pair.gold_name, list(pair.human_dirs), None, samples=100)
    rows = {r["detector"]: r for r in result.rows}
    assert result.gold == "ESA-1" and result.cells == 2690
    assert {"ESA-2", "MQM-1", "LLM"} <= set(rows)
    assert rows["MQM-1"]["rule"] == "no error span" and 0 < rows["ESA-2"]["mcc"] < 1

import math

import pytest

from tribunal.core.rating import ErrorSpan
from tribunal.eval.meta.span_f1 import cell_counts, span_scores


def span(start, end, source=False):
    return ErrorSpan(start, end, "accuracy/mistranslation", "major", is_source_error=source)


def test_hand_computed_two_cells():
    # cell 1: predicted [0,10) vs gold [5,15): 5 shared chars; spans overlap.
    # cell 2: predicted [0,4) and [20,22); gold [30,40): nothing shared.
    counts = span_scores([
        ([span(0, 10)], [span(5, 15)]),
        ([span(0, 4), span(20, 22)], [span(30, 40)]),
    ])
    assert (counts.char_overlap, counts.char_predicted, counts.char_gold) == (5, 16, 20)
    assert counts.char_precision == pytest.approx(5 / 16)
    assert counts.char_recall == pytest.approx(5 / 20)
    assert counts.char_f1 == pytest.approx(2 * (5 / 16) * (5 / 20) / (5 / 16 + 5 / 20))
    assert (counts.spans_correct, counts.spans_predicted, counts.spans_found, counts.spans_gold) == (1, 3, 1, 2)
    assert counts.span_f1 == pytest.approx(2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2))
    assert counts.cells == 2


def test_overlapping_predictions_count_characters_once():
    counts = cell_counts([span(0, 6), span(3, 8)], [span(0, 8)])
    assert (counts.char_overlap, counts.char_predicted) == (8, 8)
    assert counts.char_precision == 1.0


def test_source_errors_and_empty_spans_are_left_out():
    counts = cell_counts([span(2, 2)], [span(0, 5, source=True), span(7, 7)])
    assert counts.spans_predicted == counts.spans_gold == 0
    assert math.isnan(counts.char_precision) and math.isnan(counts.char_f1)


def test_clean_prediction_on_erroneous_segment():
    counts = cell_counts([], [span(0, 5)])
    assert counts.char_recall == 0.0 and math.isnan(counts.char_precision) and math.isnan(counts.char_f1)


def test_adjacent_spans_do_not_overlap():
    assert cell_counts([span(0, 5)], [span(5, 9)]).spans_correct == 0

"""Span counts agree in every summary line: one tally (by side, by grounding), one wording."""

from __future__ import annotations

from tribunal.cli.mt_summary_lines import span_sides
from tribunal.eval.mt.grounding import locate
from tribunal.eval.mt.report import span_tally

TRANSLATION = "The cat sat on the mat."
SOURCE = "Le chat était assis sur le tapis."
ERRORS = [
    {"span": "cat", "is_source_error": False},  # exact, in the translation
    {"span": "dog", "is_source_error": False},  # not in the translation: ungrounded
    {"span": "chat", "is_source_error": True},  # a source error, found in the source
    {"span": "cheval", "is_source_error": True},  # a source error not in the source: ungrounded in the source
]


def test_the_tally_keeps_the_sides_apart_and_adds_up():
    tally = span_tally(locate(ERRORS, TRANSLATION, SOURCE))
    assert tally["translation"] == 2 and tally["source"] == 2
    assert tally["translation_exact"] == 1 and tally["translation_ungrounded"] == 1
    assert tally["source_exact"] == 1 and tally["source_ungrounded"] == 1
    for side in ("translation", "source"):
        assert tally[side] == sum(tally[f"{side}_{g}"] for g in ("exact", "normalised", "fuzzy", "ungrounded"))


def test_both_summary_lines_say_the_same_counts_in_the_same_words():
    tally = span_tally(locate(ERRORS, TRANSLATION, SOURCE))
    # the rated-cells line reads its counts from span_evaluation's judge_spans_<key> = the same tally
    rated = {k: v for k, v in tally.items()}
    text = span_sides(tally)
    assert text == span_sides(rated)
    assert text == ("2 in the translation (1 exact, 1 ungrounded: not found in it), "
                    "2 in the source (1 exact, 1 ungrounded: not found in it)")

"""The published judge's merge rule as a pure function: most severe per span, typology order on ties."""

from tribunal.programs.mqm.merging import merge_most_severe
from tribunal.signatures.mqm.errors import DimensionError

TRANSLATION = "Die Katze sass auf der Matte."


def err(span, dimension, severity, subcategory="x"):
    return DimensionError(span=span, dimension=dimension, subcategory=subcategory, severity=severity)


def test_a_span_keeps_its_most_severe_error():
    merged = merge_most_severe([err("sass", "style", "minor"), err("sass", "terminology", "major")], TRANSLATION)
    assert merged == [err("sass", "terminology", "major")]


def test_ties_follow_accuracy_fluency_terminology_style():
    errors = [err("Matte", "style", "minor"), err("Matte", "terminology", "minor"), err("Matte", "fluency", "minor")]
    assert merge_most_severe(errors, TRANSLATION) == [err("Matte", "fluency", "minor")]
    assert merge_most_severe(errors + [err("Matte", "accuracy", "minor")], TRANSLATION)[0].dimension == "accuracy"


def test_different_spans_and_sides_are_kept_in_order():
    source_side = DimensionError(span="sass", dimension="accuracy", subcategory="omission", severity="minor",
                                 is_source_error=True)
    errors = [err("sass", "fluency", "minor"), source_side, err("Katze", "style", "minor")]
    assert merge_most_severe(errors, TRANSLATION) == errors


def test_non_translation_replaces_everything_and_spans_the_segment():
    errors = [err("sass", "accuracy", "major"), err("all", "fluency", "minor", "non-translation")]
    merged = merge_most_severe(errors, TRANSLATION)
    assert [(e.span, e.subcategory, e.severity, e.dimension) for e in merged] == \
        [(TRANSLATION, "non-translation", "major", "fluency")]

"""Value coercion: only what has exactly one reading is rewritten."""

from __future__ import annotations

from typing import Literal

import pytest

from tribunal.programs.answers.coerce import coerce

Severity = Literal["minor", "major"]
Sub = Literal["mistranslation", "untranslated text", "non-translation"]
Verdict = Literal["same", "different"]


@pytest.mark.parametrize("raw, annotation, expected", [
    ("Major", Severity, "major"),
    ("MAJOR", Severity, "major"),
    ("**Major** (the meaning changes)", Severity, "major"),
    ("Untranslated_Text", Sub, "untranslated text"),
    ("Non translation", Sub, "non-translation"),
    ("Accuracy/Mistranslation", Sub, "mistranslation"),
    ("accuracy > untranslated text", Sub, "untranslated text"),
    ("Different (the route differs)", Verdict, "different"),
    ("same - both start from salt", Verdict, "same"),
    ("not the same", Verdict, "not the same"),       # free text is never read as a label
    ("same or different", Verdict, "same or different"),
    ("minor to major", Severity, "minor to major"),
    ("Yes", bool, True), ("no.", bool, False), ("True", bool, True), (1, bool, True),
    ("maybe", bool, "maybe"),
    ("3", int, 3), ("two", int, 2), ("2 (two major errors)", int, 2), ("Score: 85/100", float, 85.0),
    ("between 2 and 3", int, "between 2 and 3"),
    ("None", list[str], []), ("No errors found.", list[str], []), (None, list[str], []),
])
def test_coerce(raw, annotation, expected):
    assert coerce(raw, annotation) == expected


def test_one_object_where_a_list_is_asked_for_and_keys_in_another_case():
    from tribunal.signatures.mqm.errors import AccuracyError

    raw = '{"Span": "Haus", "SubCategory": "Mistranslation", "SEVERITY": "Major", "is_source_error": null, "why": "x"}'
    assert coerce(raw, list[AccuracyError]) == [{"span": "Haus", "subcategory": "mistranslation", "severity": "major"}]

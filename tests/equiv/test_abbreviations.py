"""Schwartz-Hearst abbreviation matching across two step texts."""

import pytest

from tribunal.eval.equiv.abbreviations import expand_against, long_form, short_form


@pytest.mark.parametrize("token, short", [("PDAC", "PDAC"), ("AGEs", "AGE"), ("sFlt-1", "sFlt-1"), ("(CTE),", "CTE"),
                                          ("Kidneys", None), ("p53", None), ("salt", None), ("A", None)])
def test_short_forms(token, short):
    assert short_form(token) == short


@pytest.mark.parametrize("short, text, expected", [
    ("PDAC", "pancreatic ductal adenocarcinoma", "pancreatic ductal adenocarcinoma"),
    ("AGE", "accumulation of advanced glycation end products", "advanced glycation end"),  # the shortest span
    ("EPO", "increased erythropoietin secretion", "erythropoietin"),
    ("MS", "multiple sclerosis", "multiple sclerosis"),
    ("CKD", "chronic liver disease", None),
    ("VF", "atrial fibrillation", None),
])
def test_long_forms(short, text, expected):
    assert long_form(short, text) == expected


def test_expansion_replaces_only_abbreviations_the_other_text_spells_out():
    assert expand_against("VF arrest", "ventricular fibrillation") == "ventricular fibrillation arrest"
    assert expand_against("CKD progression", "diabetic nephropathy") == "CKD progression"
    assert expand_against("same text", "same text") == "same text"

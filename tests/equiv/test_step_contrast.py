"""Aligned steps compared by what they name: named differences, substitutions, verified wordings."""

import pytest

from tribunal.eval.equiv.abbreviations import expand_against
from tribunal.eval.equiv.step_contrast import contrast_steps, relations_reversed
from tribunal.eval.equiv.step_words import step_words, word_key

CASES = [
    # a named difference: one word against one, the rest kept
    ("ILC2s secrete IL-13", "ILC2s secrete IL-9", "number"),
    ("soil pH falling below 5", "soil pH falling below 6", "number"),
    ("reinfection with H3N2 strains", "reinfection with H1N1 strains", "number"),
    ("X activates Y", "X inhibits Y", "direction"),
    ("severe hyperkalaemia", "severe hypokalaemia", "direction"),
    ("microtubule stabilisation", "microtubule destabilisation", "direction"),
    ("water in uncovered containers", "water in covered containers", "direction"),
    ("GABA-A receptors", "GABA-B receptors", "sibling"),
    ("vitamin D deficiency", "vitamin A deficiency", "sibling"),
    ("atorvastatin therapy", "rosuvastatin therapy", "sibling"),
    ("BRAF V600E mutation", "BRAF V600K mutation", "sibling"),
    # kept frame, replaced word: a minimal swap or an alias the rule cannot verify
    ("osteoblast apoptosis", "osteoclast apoptosis", "substituted"),
    ("loss of butyrate-producing bacteria", "loss of butanoate-producing bacteria", "substituted"),
    ("UCP1 expression", "thermogenin expression", "substituted"),
    ("infection by SARS-CoV-2", "infection by 2019-nCoV", "substituted"),
    ("penicillin exposure", "benzylpenicillin exposure", "substituted"),  # a narrower name, not a sibling
    ("acinar-to-ductal metaplasia", "ductal-to-acinar metaplasia", "reordered"),
    ("the release of IL-6", "IL-6 releases", "reordered"),  # word order is not checked for meaning: the judge decides
    # every content word replaced: only the similarity can tell
    ("high dietary sodium intake", "excess salt consumption", "reworded"),
    ("chronic kidney disease", "progressive renal failure", "reworded"),
    ("acute anosmia", "sudden smell loss", "substituted"),  # "loss" points one way, on one side only
    # the same content words
    ("IL-33 release", "interleukin-33 release", "equal"),
    ("chronic hyperglycaemia", "chronic hyperglycemia", "equal"),
    ("TNF-alpha elevation", "TNF-α elevation", "equal"),
    ("release of IL-6", "releases of IL-6", "equal"),
]


@pytest.mark.parametrize("a, b, kind", CASES)
def test_contrast_kinds(a, b, kind):
    assert contrast_steps(expand_against(a, b), expand_against(b, a)).kind == kind
    assert contrast_steps(expand_against(b, a), expand_against(a, b)).kind == kind  # symmetric


def test_words_keep_direction_words_and_symbols_and_fold_spelling():
    words = step_words("Not less than 5% of GABA-A receptors in tumours")
    assert [w.key for w in words] == ["not", "less", "5%", "gaba", "a", "receptor", "tumor"]
    assert [w.text for w in words if w.symbol] == ["GABA", "A"] and [w.text for w in words if w.number] == ["5%"]
    assert word_key("secretes") == word_key("secreted") == word_key("secrete")


def test_reversed_links():
    assert relations_reversed("activates", "inhibits") and relations_reversed("causes", "prevents")
    assert not relations_reversed("increases", "raises") and not relations_reversed("causes", "triggers")

"""Span grounding: exact, normalised, fuzzy, and ungroundable spans counted (never dropped)."""

from __future__ import annotations

import pytest

from tribunal.eval.mt.grounding import FUZZY_THRESHOLD, ground, locate, spans_of
from tribunal.core.mt_item import JudgeItem
from tribunal.eval.mt.items import RunItems
from tribunal.core.item_result import ItemResult
from tribunal.eval.mt.report import grounding_counts

TEXT = "Er sagte: „Das  Haus ist groß.“ Dann ging er nach Hause."


@pytest.mark.parametrize("span, method, found", [
    ("Das  Haus", "exact", "Das  Haus"),
    ("Haus", "exact", "Haus"),
    ("das haus", "normalised", "Das  Haus"),                      # case and whitespace
    ('"Das Haus ist groß."', "normalised", "„Das  Haus ist groß.“"),  # other quotes
    ("DAS HAUS IST GROSS", "normalised", "Das  Haus ist groß"),    # ß case-folds to ss
    ("Das\u00a0Haus", "normalised", "Das  Haus"),                  # a no-break space (NFKC)
    ("Dan ging er", "fuzzy", "Dann ging er"),                     # a dropped letter, widened to the word
    ("ging err nach", "fuzzy", "ging er nach"),
    ("Katze", "ungrounded", None),
    ("Das", "exact", "Das"),
    ("", "ungrounded", None),
    ("“Haus”", "normalised", "Haus"),                              # a span the model put in quotes
    ('"Dann ging"', "normalised", "Dann ging"),
    ("「nach Hause」", "normalised", "nach Hause"),
    ("'Das  Haus ist groß.'", "normalised", "Das  Haus ist groß."),
    ('""', "ungrounded", None),
])
def test_ground(span, method, found):
    grounding = ground(span, TEXT)
    assert grounding.method == method
    assert (TEXT[grounding.start:grounding.end] if grounding.start is not None else None) == found


def test_fuzzy_needs_length_and_similarity():
    assert ground("Hsu", TEXT).method == "ungrounded"  # too short to align safely (one slip from "Hau")
    weak = ground("Dinge gingen nachher", TEXT)
    assert weak.method == "ungrounded" and weak.similarity < FUZZY_THRESHOLD


def test_located_errors_keep_offsets_method_and_the_ungrounded_ones():
    errors = [{"span": "das haus", "severity": "major"}, {"span": "Katze", "severity": "minor"},
              {"span": "source words", "severity": "minor", "is_source_error": True}]
    located = locate(errors, TEXT, source="some source words here")
    assert [e["grounding"] for e in located] == ["normalised", "ungrounded", "exact"]
    assert (located[0]["start"], located[0]["end"]) == (11, 20) and located[1]["start"] is None
    assert (located[2]["start"], located[2]["end"]) == (5, 17)  # in the source, not the translation
    assert [(s.start, s.end, s.side) for s in spans_of(located)] == [(11, 20, "target"), (5, 17, "source")]


def test_the_run_summary_counts_spans_by_grounding():
    item = JudgeItem("k", "source", TEXT)
    items = RunItems(cells=[], items={"k": item}, systems=[])
    result = ItemResult(key="k", status="scored", score=-6.0,
                        errors=[{"span": s, "severity": "minor"} for s in ("Haus", "das haus", "Dan ging er", "Katze")]
                        + [{"span": "source", "severity": "minor", "is_source_error": True}])
    counts = grounding_counts(items, {"k": result})
    assert {k: v for k, v in counts.items() if k.startswith("translation")} == {
        "translation": 4, "translation_exact": 1, "translation_normalised": 1, "translation_fuzzy": 1,
        "translation_ungrounded": 1}
    assert counts["source"] == counts["source_exact"] == 1 and counts["source_ungrounded"] == 0  # kept apart


def test_span_f1_of_the_optimizer_metric_uses_grounded_offsets():
    from tribunal.optimizers.mt_metric import translation_spans

    located, missing = translation_spans([{"span": "das haus", "severity": "Major"}, {"span": "Katze"},
                                          {"span": "Haus", "is_source_error": True}, {"span": ""}], TEXT)
    assert [(s.start, s.end, s.severity, s.text) for s in located] == [(11, 20, "major", "das haus")]
    assert missing == ["Katze"]  # the source error and the empty quote are neither located nor missing


def test_locate_reads_typed_errors_as_it_reads_dicts():
    from tribunal.signatures.mqm.errors import MQMError

    typed = MQMError(span="das haus", subcategory="mistranslation", severity="major")
    assert locate([typed], TEXT) == locate([typed.model_dump()], TEXT)
    assert spans_of(locate([typed], TEXT))[0].category == "mistranslation"

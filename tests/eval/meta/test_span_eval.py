import pytest

from tribunal.data.mtme import LanguagePair
from tribunal.core.spans import Span
from tests.conftest import write


def err(start, end):
    return {"start": start, "end": end, "category": "accuracy/mistranslation", "severity": "major",
            "score": 5, "is_source_error": False}


def rating_line(system, errors):
    import json

    return f"{system}\t" + ("None" if errors is None else json.dumps({"errors": errors})) + "\n"


def test_two_raters_scored_on_their_own_cells(tiny_mtme):
    from tests.support.span_f1_by_rater import span_f1_by_rater

    human = tiny_mtme / "human-scores"
    write(human / "en-de.mqm.rater1.seg.rating",
          rating_line("A", [err(0, 2)]) + rating_line("A", None) + rating_line("A", None))
    write(human / "en-de.mqm.rater2.seg.rating",
          rating_line("A", None) + rating_line("A", [err(0, 2)]) + rating_line("A", []))
    pair = LanguagePair(tiny_mtme, "en-de")
    predicted = {("A", 0): [Span(0, 2, "major", category="x")], ("A", 1): [], ("A", 2): [Span(0, 1, "minor", category="x")]}
    table = span_f1_by_rater(pair, predicted).set_index("rater")
    assert table.loc["mqm.rater1", "char_f1"] == 1.0 and table.loc["mqm.rater1", "cells"] == 1
    # rater2: segment 1 missed (2 gold chars), segment 2 a false alarm (1 predicted char)
    assert table.loc["mqm.rater2", "char_precision"] == 0.0 and table.loc["mqm.rater2", "char_recall"] == 0.0
    assert table.loc["mean", "char_recall"] == pytest.approx(0.5)


def test_real_zh_en_has_eight_raters(wmt23_root):
    from tests.support.span_f1_by_rater import span_f1_by_rater

    pair = LanguagePair(wmt23_root, "zh-en")
    ratings = pair.ratings("mqm.rater1")
    system = "ONLINE-B"
    with_errors = [i for i, r in enumerate(ratings[system])
                   if r and any(e.end > e.start and not e.is_source_error for e in r)][:20]
    assert with_errors
    # a judge that repeats rater1's spans exactly is perfect against rater1
    predicted = {(system, i): list(ratings[system][i]) for i in with_errors}
    table = span_f1_by_rater(pair, predicted).set_index("rater")
    assert list(table.index) == [f"mqm.rater{k}" for k in range(1, 9)] + ["mean"]
    assert table.loc["mqm.rater1", "char_f1"] == 1.0
    assert table.loc["mqm.rater1", "cells"] == len(with_errors)

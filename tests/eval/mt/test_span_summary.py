"""The ``mt evaluate`` span summary: the field's measures pooled over (cell, rater) and per rater."""

from types import SimpleNamespace

import pytest

from tribunal.core.spans import Span
from tribunal.eval.mt.report import span_evaluation


class Pair:
    rating_names = ["mqm.rater1", "mqm.rater2"]
    n_segments = 1

    def ratings(self, name):
        gold = (Span(0, 10, "major", category="x"),) if name == "mqm.rater1" else (Span(0, 4, "minor", category="x"),)
        return {"sys": [gold]}


def test_mpp_and_wmt25_pooled_and_per_rater(monkeypatch):
    import tribunal.eval.mt.report as report

    cell = SimpleNamespace(key="k", system="sys", segment=0)
    items = SimpleNamespace(cells=[cell], items={"k": SimpleNamespace(translation="0123456789abc", source="src")})
    results = {"k": SimpleNamespace(status="scored", errors=[{"span": "01234", "severity": "major"}])}
    monkeypatch.setattr(report, "locate", lambda errors, t, s: [{**errors[0], "start": 0, "end": 5,
                                                                  "grounding": "exact"}])
    spans = span_evaluation(Pair(), items, results)
    # judge [0,5) against rater1 [0,10): MPP P = 1, R = 0.5; against rater2 [0,4): P = 4/5, R = 1
    assert spans["mqm.rater1.mpp_f"] == pytest.approx(2 * 0.5 / 1.5)
    assert spans["mqm.rater2.mpp_f"] == pytest.approx(2 * 0.8 / 1.8)
    assert spans["mpp_precision"] == pytest.approx((1 + 0.8) / 2) and spans["mpp_recall"] == pytest.approx(0.75)
    # characters: 5 + 4 matched of 10 predicted (5 twice) and 14 gold
    assert spans["wmt25_precision"] == pytest.approx(9 / 10) and spans["wmt25_recall"] == pytest.approx(9 / 14)
    assert spans["char_f1"] > 0  # the legacy figure stays beside them


def test_a_judge_that_marks_nothing_reads_the_legacy_figures_by_the_empty_side_convention():
    cell = SimpleNamespace(key="k", system="sys", segment=0)
    items = SimpleNamespace(cells=[cell], items={"k": SimpleNamespace(translation="0123456789abc", source="src")})
    spans = span_evaluation(Pair(), items, {"k": SimpleNamespace(status="scored", errors=[])})
    keys = ("char_precision", "char_recall", "char_f1", "span_precision", "span_recall", "span_f1")
    assert [spans[k] for k in keys] == [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]  # NaN / 0 / NaN before issue 43
    assert (spans["mpp_precision"], spans["mpp_f"]) == (1.0, 0.0)  # as the field's measures read it
    assert (spans["cells"], spans["predicted_spans"], spans["gold_spans"]) == (2.0, 0.0, 2.0)

"""``mt evaluate``'s error-free block (WMT26 subtask 3): there when the scored cells have gold, absent otherwise."""

from __future__ import annotations

import json
import math
from types import SimpleNamespace

import pytest

from tests.support.cli import run_cli
from tests.support.loopback import loopback_server
from tribunal.core.spans import Span
from tribunal.data.mtme import LanguagePair
from tribunal.eval.mt.error_free import error_free_metrics, run_error_free, run_gold

from .helpers import KEY_ENV, SECRET

# tiny_mtme's MQM gold (no rating file, so "score >= 0"): A [-1, -5, None], B [0, -2, -1], C [-3, -1, 0]
# -> error-free B1 and C3 only; the judge says error-free for B1, C3 and A2: tp 2, fp 1, fn 0, tn 5.
SAID_ERROR_FREE = {"B1", "C3", "A2"}


def verdicts(name, inputs):
    return {"error_free": inputs["translation"] in SAID_ERROR_FREE}


def test_the_run_report_carries_the_block_in_its_summary_terminal_and_page(tmp_path, capsys, monkeypatch, tiny_mtme):
    monkeypatch.setenv(KEY_ENV, SECRET)
    out = tmp_path / "out"
    with loopback_server(verdicts) as (api_base, state):
        outcome = run_cli(capsys, "mt", "evaluate", "--data", tiny_mtme, "--lp", "en-de", "--program", "error-free",
                          "--lm", "openai/loopback-judge", "--api-base", api_base, "--api-key-env", KEY_ENV,
                          "--systems", "A", "--systems", "B", "--systems", "C", "--out", out, "--no-track")
    assert outcome.status == 0, outcome.err
    block = json.loads((out / "summary.json").read_text())["details"]["error_free"]
    assert block["cells"] == 8 and block["gold_error_free_rate"] == pytest.approx(2 / 8)
    assert block["gold"] == "mqm" and block["prediction_rule"].startswith("no error span and score >= 85")
    figures = {m: f["value"] for m, f in block["measures"].items()}
    assert figures["precision"] == pytest.approx(2 / 3) and figures["recall"] == 1.0
    assert figures["f1"] == pytest.approx(0.8) and figures["balanced_accuracy"] == pytest.approx((1 + 5 / 6) / 2)
    assert figures["mcc"] == pytest.approx(10 / math.sqrt(3 * 2 * 6 * 5))
    low, high = block["measures"]["mcc"]["interval"]
    assert low <= figures["mcc"] <= high
    said = " ".join(outcome.out.split())
    assert "error-free detection (WMT26 subtask 3) against mqm" in said and "MCC 0.745 [" in said
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "error-free detection (WMT26 subtask 3)" in page and 'data-fig="error_free.mcc" data-value="0.745' in page


def test_no_gold_on_the_scored_cells_no_block(tiny_mtme):
    pair = LanguagePair(tiny_mtme, "en-de")
    cell = SimpleNamespace(system="A", segment=2, key="k")  # A's third segment has no gold score
    items = SimpleNamespace(cells=[cell], systems=["A"])
    results = {"k": SimpleNamespace(status="scored", errors=[], score=100.0)}
    assert run_error_free(pair, items, results, "esa") is None
    assert error_free_metrics(None) == {}


def test_rating_files_give_the_gold_and_span_judges_convert_by_their_spans(tiny_mtme):
    pair = LanguagePair(tiny_mtme, "en-de")
    major = (Span(0, 1, "major", category="accuracy"),)
    neutral = (Span(0, 1, "neutral", category="other"),)
    ratings = {"mqm.r1": {"A": [None, major, None]}, "mqm.r2": {"A": [neutral, neutral, None]}}
    pair.__dict__["rating_names"] = list(ratings)
    pair.ratings = lambda name: ratings[name]
    name, rule, labels = run_gold(pair, ["A"])
    assert name == "mqm.r1, mqm.r2" and rule == "no error span"
    assert labels[:2].tolist() == [1.0, 0.0] and math.isnan(labels[2])  # segment 0 from r2, 1 from r1
    cells = [SimpleNamespace(system="A", segment=i, key=str(i)) for i in range(2)]
    results = {"0": SimpleNamespace(status="scored", errors=[{"severity": "minor"}], score=-1.0),
               "1": SimpleNamespace(status="scored", errors=[{"severity": "Major"}], score=-5.0)}
    block = run_error_free(pair, SimpleNamespace(cells=cells, systems=["A"]), results, "mqm", samples=50)
    assert block["cells"] == 2 and block["measures"]["predicted_rate"]["value"] == 0.0
    metrics = error_free_metrics(block)
    assert metrics["error_free.recall"] == 0.0 and {"error_free.mcc_low", "error_free.mcc_high"} <= set(metrics)

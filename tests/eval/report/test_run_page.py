"""The run page is built from the run's own records: every row, span and figure checked against them."""

from __future__ import annotations

import json
import math
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tribunal.core.run_summary import read_run_summary
from tribunal.data.mtme import LanguagePair
from tribunal.eval.mt.journal import Journal
from tribunal.eval.report.render import read_page_data

from .runs import OUTPUTS, PLANTED, UNGROUNDED, evaluate, markup_judge, write_markup_data


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("page")
    data = write_markup_data(root / "data")
    result = evaluate(data, "en-de", root / "out", "gemba-mqm", markup_judge)
    return root / "out", data, result


class Figures(HTMLParser):
    """``data-fig`` cells (key -> JSON values, one per head) and ``data-head`` texts of the static head."""

    def __init__(self):
        super().__init__()
        self.figures: dict[str, list] = {}
        self.heads: dict[str, list[str]] = {}
        self._open: str | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "data-fig" in attrs:
            self.figures.setdefault(attrs["data-fig"], []).append(json.loads(attrs["data-value"]))
        if "data-head" in attrs:
            self._open = attrs["data-head"]
            self.heads.setdefault(self._open, []).append("")

    def handle_data(self, data):
        if self._open:
            self.heads[self._open][-1] += data

    def handle_endtag(self, tag):
        self._open = None


def journal_of(out: Path) -> Journal:
    path = next(out.glob("journal-*.jsonl"))
    return Journal(path, json.loads(path.read_text(encoding="utf-8").split("\n")[0])["signature"])


def test_head_figures_are_the_summary_s(run):
    out, _, _ = run
    summary = read_run_summary(out)
    html = (out / "report.html").read_text(encoding="utf-8")
    head = read_page_data(out / "report.html")["heads"][0]
    assert head["meta"] == summary.meta and head["spans"] == summary.spans
    assert head["items"] == summary.items.model_dump() and head["calls"] == summary.calls
    assert (head["prompt_tokens"], head["completion_tokens"], head["spend"]) == (
        summary.prompt_tokens, summary.completion_tokens, summary.spend)
    parsed = Figures()
    parsed.feed(html)
    shown = {key: values[0] for key, values in parsed.figures.items()}
    for key in ("seg_pearson", "seg_acc_t", "sys_pearson", "covered_cells"):
        assert shown[f"meta.{key}"] == summary.meta[key]
    for key in ("mpp_precision", "mpp_recall", "mpp_f", "wmt25_f", "mqm.merged.mpp_f"):
        assert shown[f"spans.{key}"] == summary.spans[key]
    assert all(shown[f"spans.{key}"] == value for key, value in summary.spans.items())  # every span figure
    assert [shown[f"items.{k}"] for k in ("total", "scored", "unscored", "degraded")] == [8, 7, 1, 0]
    assert shown["calls"] == summary.calls and shown["prompt_tokens"] == summary.prompt_tokens
    assert parsed.heads["judge"] == ["gemba-mqm"] and parsed.heads["model"] == ["openai/loopback-judge"]
    assert parsed.heads["signature"] == [summary.signature]
    assert summary.outputs["report"] == str(out / "report.html")


def test_every_row_is_a_journal_result_with_its_located_spans_and_the_raters(run):
    out, data, _ = run
    journal = journal_of(out)
    page = read_page_data(out / "report.html")
    located = {(e["system"], e["segment"]): e for e in map(json.loads, (out / "errors.jsonl").open(encoding="utf-8"))}
    pair = LanguagePair(data, "en-de")
    assert {row["key"] for row in page["rows"]} == set(journal.results)
    assert len(page["rows"]) == len(located) == 8
    for row in page["rows"]:
        result, cell, judged = journal.results[row["key"]], located[(row["sys"], row["seg"])], row["j"][0]
        assert (judged["status"], judged["score"], judged["reason"]) == (result.status, result.score, result.reason)
        assert row["tgt"] == OUTPUTS[row["sys"]][row["seg"]] and row["src"] == pair.sources[row["seg"]]
        gold = pair.gold_seg[row["sys"]][row["seg"]]
        assert row["human"] == (None if math.isnan(gold) else gold)
        assert [(s["s"], s["e"], s["g"], s["text"]) for s in judged["spans"]] == [
            (e["start"], e["end"], e["grounding"], e["span"]) for e in cell["errors"]]
        for span in judged["spans"]:
            if span["s"] is not None:
                assert row["tgt"][span["s"]:span["e"]] == span["text"]  # the markup run's spans are exact quotes
        rating = pair.ratings("mqm.merged")[row["sys"]][row["seg"]]
        assert [(s["s"], s["e"], s["sev"]) for s in row["r"]["mqm.merged"]] == [
            (e.start, e.end, e.severity) for e in rating]
        if result.status == "scored":
            line = result.model_dump()  # as journaled
            assert judged["transcript"] == line["transcript"] and len(judged["calls"]) == len(line["trace"]["calls"])
        else:
            assert judged["calls"] and judged["raw"] == result.raw


def test_markup_is_escaped_and_ungrounded_spans_are_kept_apart(run):
    out, _, _ = run
    html = (out / "report.html").read_text(encoding="utf-8")
    assert PLANTED not in html and "alert(" not in html.split('id="tribunal-page-data"')[0]
    assert html.count("<script") == 2  # the data and the page's own script, nothing planted
    rows = read_page_data(out / "report.html")["rows"]
    planted = next(r for r in rows if PLANTED in r["tgt"])
    assert any(s["text"] == PLANTED and s["sev"] == "critical" for s in planted["j"][0]["spans"])
    lost = [s for r in rows for s in r["j"][0]["spans"] if s["text"] == UNGROUNDED]
    assert len(lost) == 2 and all(s["s"] is None and s["g"] == "ungrounded" for s in lost)


def test_matches_misses_and_the_orderings_come_with_the_rows(run):
    out, _, _ = run
    rows = {(r["sys"], r["seg"]): r for r in read_page_data(out / "report.html")["rows"]}
    missed = rows[("B", 1)]  # the raters' major "scharf": the judge marked "stiegen" and a span not in the text
    assert missed["missed"] == [1] and [s["hit"] for s in missed["r"]["mqm.merged"]] == [[False]]
    found = rows[("A", 0)]
    assert found["missed"] == [0] and any(s["hit"] for s in found["j"][0]["spans"])
    assert found["dis"] == abs(found["j"][0]["score"] - found["human"])
    unscored = rows[("B", 2)]
    assert unscored["j"][0]["status"] == "unscored" and unscored["dis"] is None

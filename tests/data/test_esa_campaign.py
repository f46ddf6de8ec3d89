"""The ESA campaign reader against the campaign's own files, and its rules on small hand-made exports."""

from __future__ import annotations

import csv
import json
import math
import os
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from tribunal.data.errors import DataFormatError
from tribunal.data.esa_campaign import read_campaign
from tribunal.data.esa_gold import campaign_protocol, resolve_human
from tribunal.data.mtme import LanguagePair

DATA = Path(os.environ.get("TRIBUNAL_DATA", "/nonexistent"))
CAMPAIGN = DATA / "esa-wmt23"
needs_campaign = pytest.mark.skipif(not (CAMPAIGN / "en-de.ESA-1.seg.score").is_file(), reason="no ESA campaign data")


def _seg_file(name: str) -> dict[str, list[float]]:
    """``{system: [score or NaN]}`` read with the csv module (tab-separated, no header)."""
    out: dict[str, list[float]] = {}
    with (CAMPAIGN / f"en-de.{name}.seg.score").open(encoding="utf-8", newline="") as handle:
        for system, score in csv.reader(handle, delimiter="\t"):
            out.setdefault(system, []).append(math.nan if score == "None" else float(score))
    return out


def _raw_rows(name: str) -> list[list[str]]:
    with (CAMPAIGN / name).open(encoding="utf-8", newline="") as handle:
        return list(csv.reader(handle))


@needs_campaign
@pytest.mark.parametrize("protocol", ["ESA-1", "ESA-2", "ESA-IAA", "ESAAI-1"])
def test_scores_match_the_campaigns_score_files(protocol):
    campaign = campaign_protocol(CAMPAIGN, protocol)
    expected = _seg_file(protocol)
    mine = campaign.seg_scores(list(expected), 557)
    items = sum(1 for v in expected.values() for x in v if not math.isnan(x))
    assert len(campaign.cells) == items
    for system, values in expected.items():
        want = np.array(values)
        assert np.array_equal(np.isnan(mine[system]), np.isnan(want)), system
        assert np.nanmean(mine[system]) == pytest.approx(np.nanmean(want)), system


@needs_campaign
def test_esa1_figures_and_every_kept_annotation_is_a_raw_row():
    rows = _raw_rows("240315rc5ESA.scores.csv")
    real = [r for r in rows if "tutorial" not in r[7] and "#duplicate" not in r[7]]
    campaign = campaign_protocol(CAMPAIGN, "ESA-1")
    assert campaign.rows["BAD"] == sum(r[3] == "BAD" for r in real) == 397
    assert campaign.rows["TGT"] == sum(r[3] == "TGT" for r in real)
    assert len(campaign.cells) == 2691
    by_login_time = {(r[0], float(r[11])): r for r in real if r[3] == "TGT"}
    spans = 0
    for (system, _), annotation in campaign.cells.items():
        raw = by_login_time[(annotation.login, annotation.end_time)]
        assert raw[1] == f"wmt23.{system}" and float(raw[6]) == annotation.score
        assert len(json.loads(raw[9])) == len(annotation.spans)
        spans += len(json.loads(raw[9]))
    assert campaign.span_count() == spans == 1160


@needs_campaign
def test_mqm_pass_spans_give_its_score_file():
    weights = {"minor": 1.0, "major": 5.0, "critical": 25.0, "undecided": 0.0}
    campaign = campaign_protocol(CAMPAIGN, "MQM-1")
    expected = _seg_file("MQM-1")
    ratings = campaign.ratings(list(expected), 557)
    for system, values in expected.items():
        for line, want in enumerate(values):
            rating = ratings[system][line]
            assert (rating is None) == math.isnan(want)
            if rating is not None:
                got = -sum(0.1 if "Punctuation" in e.category else weights[e.severity] for e in rating)
                assert got == pytest.approx(want)


@needs_campaign
def test_human_esa_resolves_to_the_campaigns_first_pass():
    pair = LanguagePair(DATA / "wmt23", "en-de", gold="esa", human_dirs=(CAMPAIGN,))
    assert pair.gold_name == "ESA-1"
    assert pair._human("seg.score") == CAMPAIGN / "en-de.ESA-1.seg.score"
    assert int((~np.isnan(np.concatenate(list(pair.gold_seg.values())))).sum()) == 2691


def test_esa_alias_prefers_the_pairs_own_files(tmp_path):
    (tmp_path / "en-de.esa-human1.seg.score").write_text("A\t90\n")
    (tmp_path / "en-de.ESA-1.seg.score").write_text("A\t80\n")
    assert resolve_human("en-de", "esa", [tmp_path]) == "esa-human1"
    assert resolve_human("en-de", "mqm", [tmp_path]) == "mqm"


def _export(tmp_path: Path, rows: list[list[object]], items: list[list[dict]]) -> tuple[Path, Path]:
    scores, batches = tmp_path / "x.scores.csv", tmp_path / "b.json"
    with scores.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    batches.write_text(json.dumps([{"items": batch} for batch in items]), encoding="utf-8")
    return scores, batches


def _item(item_id: int, document: str, line: int, target: str = "Hallo Welt") -> dict:
    return {"itemID": item_id, "documentID": document, "_item": f"S | {line} | d", "targetText": target}


def _row(login, item_id, document, score, spans, end, kind="TGT"):
    return [login, "wmt23.S", item_id, kind, "eng", "deu", score, document, False, json.dumps(spans), 0, end]


def test_colliding_item_is_resolved_by_the_logins_batch_and_newer_annotation_wins(tmp_path):
    items = [[_item(1, "d#S", 0), _item(2, "d#S", 1)], [_item(1, "d#S", 5), _item(3, "d#S", 6)]]
    rows = [_row("u1", 2, "d#S", 70, [], 10), _row("u1", 1, "d#S", 60, [], 11),
            _row("u2", 3, "d#S", 50, [], 12), _row("u2", 1, "d#S", 40, [], 13),
            _row("u1", 1, "d#S", 99, [], 5),  # same login, older end time: kept out
            _row("u2", 9, "d#S#bad1", 10, [], 14, kind="BAD"), _row("u3", 1, "tutorial#x", 100, [], 1)]
    campaign = read_campaign(*_export(tmp_path, rows, items))
    assert {k: a.score for k, a in campaign.cells.items()} == {("S", 1): 70, ("S", 0): 60, ("S", 6): 50, ("S", 5): 40}
    assert campaign.rows == Counter({"TGT": 5, "BAD": 1, "skipped": 1, "replaced": 1})


def test_spans_omission_and_bad_input(tmp_path):
    spans = [{"start_i": 0, "end_i": 5, "severity": "Major", "error_type": None},
             {"start_i": "missing", "end_i": "missing", "severity": "minor", "error_type": None}]
    campaign = read_campaign(*_export(tmp_path, [_row("u", 1, "d#S", 30, spans, 1)], [[_item(1, "d#S", 0)]]))
    first, omission = campaign.cells[("S", 0)].spans
    assert (first.start, first.end, first.severity, first.category) == (0, 5, "major", "")
    assert (omission.start, omission.end, omission.category) == (10, 10, "omission")
    bad = [{"start_i": 4, "end_i": 2, "severity": "minor"}]
    with pytest.raises(DataFormatError, match=r"x\.scores\.csv:1: bad span offsets"):
        read_campaign(*_export(tmp_path, [_row("u", 1, "d#S", 30, bad, 1)], [[_item(1, "d#S", 0)]]))
    with pytest.raises(DataFormatError, match=r"x\.scores\.csv:1: item 7 of d#S is in no batch"):
        read_campaign(*_export(tmp_path, [_row("u", 7, "d#S", 30, [], 1)], [[_item(1, "d#S", 0)]]))

"""Raters' and judges' scores for ``mt agreement``: WMT rating and score files, user JSONL, judges."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from tests.conftest import write
from tests.data.newer_sets import materialise, wmt25_files
from tribunal.errors import UserError
from tribunal.data.errors import DataFormatError
from tribunal.data.judge_scores import read_judge
from tribunal.data.mtme import LanguagePair
from tribunal.core.spans import Span
from tribunal.data.multi_ratings import rating_score, user_ratings, wmt_raters


def lines(*records) -> str:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records)


def test_rating_scores_use_each_errors_score_else_the_wmt_weights():
    assert math.isnan(rating_score(None)) and rating_score(()) == 0.0
    given = Span(0, 3, "major", category="accuracy/mistranslation", score=5.0)
    assert rating_score((given, Span(0, 1, "minor", category="fluency/punctuation"))) == pytest.approx(-5.1)
    assert rating_score((Span(0, 1, "major", category="Non-translation!"), Span(0, 1, "minor", category="style"))) == -26.0
    assert rating_score((Span(0, 1, "critical", category="x"), Span(0, 1, "neutral", category="source issue"))) == -25.0


def test_user_files_rater_by_item(tmp_path):
    path = write(tmp_path / "r.jsonl", lines({"item": "d1:1", "rater": "ann1", "score": -5},
                                             {"item": "d1:1", "rater": "ann2", "score": -1.5}, "",
                                             {"item": 7, "rater": "ann1", "score": 0},
                                             {"item": 7, "rater": "ann2", "score": None}))
    table = user_ratings([path], "mqm")
    assert table.items == ["d1:1", "7"] and table.raters == ["ann1", "ann2"] and table.scale == "mqm"
    assert np.array_equal(table.scores, np.array([[-5.0, 0.0], [-1.5, np.nan]]), equal_nan=True)


@pytest.mark.parametrize("bad, message", [
    ("{oops", r"r.jsonl:2: not a JSON line"),
    ("[1, 2]", r"r.jsonl:2: expected a JSON object"),
    ('{"item": "a", "rater": "x", "score": 1, "note": "?"}', r"r.jsonl:2: unknown key 'note'"),
    ('{"item": "a", "score": 1}', r"r.jsonl:2: missing key 'rater'"),
    ('{"item": "", "rater": "x", "score": 1}', r"r.jsonl:2: item must be a non-empty string or an integer"),
    ('{"item": "a", "rater": 3, "score": 1}', r"r.jsonl:2: rater must be a non-empty string"),
    ('{"item": "a", "rater": "x", "score": "bad"}', r"r.jsonl:2: score must be a finite number or null, not 'bad'"),
    ('{"item": "a", "rater": "x", "score": NaN}', r"r.jsonl:2: score must be a finite number or null, not nan"),
    ('{"item": "a", "rater": "x", "score": true}', r"r.jsonl:2: score must be a finite number or null"),
    ('{"item": "s1", "rater": "x", "score": 2}', r"r.jsonl:2: rater 'x' scores item 's1' twice \(first at r.jsonl:1\)"),
])
def test_a_bad_user_line_names_its_file_and_line(tmp_path, bad, message):
    path = write(tmp_path / "r.jsonl", lines({"item": "s1", "rater": "x", "score": -1}, bad))
    with pytest.raises(DataFormatError, match=message):
        user_ratings([path])


def test_an_empty_user_file_is_refused(tmp_path):
    with pytest.raises(DataFormatError, match=r"e.jsonl: no ratings \(empty file\)"):
        user_ratings([write(tmp_path / "e.jsonl", "\n")])


def _wmt25(tmp_path):
    files = wmt25_files()
    gold = files["human-scores/en-cs_CZ.esa-human1.seg.score"].decode().splitlines()
    second = [f"{line.split(chr(9))[0]}\t{90 - 3 * k}" for k, line in enumerate(gold)]
    files["human-scores/en-cs_CZ.esa-human2.seg.score"] = ("\n".join(second) + "\n").encode()
    return LanguagePair(materialise(tmp_path / "wmt25", files), "en-cs_CZ")


def test_esa_second_annotation_is_found_by_default(tmp_path):
    pair = _wmt25(tmp_path)
    table = wmt_raters(pair)
    assert table.raters == ["esa-human1", "esa-human2"] and table.scale == "esa"
    assert table.items[:2] == ["A:0", "A:1"] and table.scores.shape == (2, 20)
    assert table.scores[0, 1] == -50.0 and table.scores[1, 1] == 87.0
    with pytest.raises(UserError, match="--human esa-human3: no en-cs_CZ.esa-human3.seg.rating or .*seg.score"):
        wmt_raters(pair, ["esa-human1", "esa-human3"])


def test_a_pair_without_several_raters_says_what_it_has(tiny_mtme):
    with pytest.raises(UserError, match=r"en-de: no scores by several raters .* score files: mqm\); name two or more"):
        wmt_raters(LanguagePair(tiny_mtme, "en-de"))


def test_judges_from_a_folder_a_score_file_or_jsonl(tmp_path):
    pair = _wmt25(tmp_path)
    out = tmp_path / "out" / "metric-scores" / "en-cs_CZ"
    write(out / "GEMBA-ESA-src.seg.score", "".join(f"A\t{v}\n" for v in (90, 80, "None", 70)))
    judge = read_judge(tmp_path / "out", pair)
    assert judge.name == "GEMBA-ESA-src" and judge.scale == "esa" and judge.scores == {"A:0": 90, "A:1": 80, "A:3": 70}
    assert np.isnan(judge.aligned(["A:2", "B:0"])).all()
    metric = read_judge(pair.root / "metric-scores" / "en-cs_CZ" / "M-refA.seg.score", pair)
    assert metric.scale == "other" and metric.scores["B:0"] == 0.9
    assert read_judge(pair.root / "metric-scores" / "en-cs_CZ" / "M-refA.seg.score", pair, "mqm").scale == "mqm"
    single = write(tmp_path / "j.jsonl", lines({"item": "x", "rater": "mine", "score": 1}))
    assert read_judge(single, None).name == "mine"
    two = write(tmp_path / "j2.jsonl", lines({"item": "x", "rater": "a", "score": 1}, {"item": "x", "rater": "b", "score": 1}))
    with pytest.raises(UserError, match="a judge file holds one rater \\(found 2: a, b\\)"):
        read_judge(two, None)
    write(out / "Other-src.seg.score", "A\t1\n" * 4)
    with pytest.raises(UserError, match="expected one en-cs_CZ segment score file .* name the file instead"):
        read_judge(tmp_path / "out", pair)
    with pytest.raises(UserError, match="not a `tribunal mt evaluate` output folder"):
        read_judge(tmp_path, pair)
    with pytest.raises(UserError, match="with --ratings the judge is a JSONL file"):
        read_judge(tmp_path / "out", None)
    with pytest.raises(UserError, match="no such file or folder"):
        read_judge(tmp_path / "missing", pair)


def test_rated_cells_are_read_without_parsing_the_ratings(tmp_path):
    from tribunal.data.multi_ratings import rated_cells

    path = write(tmp_path / "x.seg.rating", 'A\tNone\nA\t{"errors": []}\nB\t{"errors": [oops\nB\tNone\n')
    assert rated_cells(path, 2) == {"A:1", "B:0"}
    assert rated_cells(path, 3) is None  # not whole blocks of 3: the caller reads the file in full
    assert rated_cells(write(tmp_path / "y.seg.score", "A\t1\nB\t2\nA\tNone\nB\t1\n"), 2) is None


def test_rated_cells_from_the_cache_equal_the_scan_and_need_no_whole_blocks(tmp_path):
    from tribunal.data.multi_ratings import rated_cells
    from tribunal.data.score_cache import ScoreCache

    path = write(tmp_path / "x.seg.rating", 'A\tNone\nA\t{"errors": []}\nB\t{"errors": []}\nB\tNone\n')
    cache = ScoreCache(tmp_path / "cache")
    assert rated_cells(path, 2, cache) == rated_cells(path, 2) == {"A:1", "B:0"}
    mixed = write(tmp_path / "m.seg.rating", 'A\tNone\nB\t{"errors": []}\nA\t{"errors": []}\nB\tNone\n')
    assert rated_cells(mixed, 2) is None and rated_cells(mixed, 2, cache) == {"A:1", "B:0"}  # the k-th line of each system


def test_wmt23_zh_en_rated_cells_from_the_cache_equal_the_scan(wmt23_root, tmp_path):
    from tribunal.data.mtme import LanguagePair
    from tribunal.data.multi_ratings import rated_cells, rater_file
    from tribunal.data.score_cache import ScoreCache

    pair = LanguagePair(wmt23_root, "zh-en", cache=ScoreCache(tmp_path / "cache"))
    for name in pair.rating_names:
        path = rater_file(pair, name)
        scanned = rated_cells(path, pair.n_segments)
        assert scanned and rated_cells(path, pair.n_segments, pair.cache) == scanned

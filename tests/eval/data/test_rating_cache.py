"""Rating files through the parsed-data cache: exactly a fresh parse, and a changed file is read again."""

from __future__ import annotations

import json
import os

from tribunal.eval.data.ratings import parse_ratings, read_ratings
from tribunal.eval.data.score_cache import ScoreCache


def _line(system: str, errors: list[dict] | None) -> str:
    return f"{system}\tNone" if errors is None else f"{system}\t" + json.dumps({"errors": errors})


ERRORS = [
    {"start": 0, "end": 4, "category": "Accuracy/Mistranslation", "severity": "Major"},
    {"start": 5, "end": 5, "category": "Fluency/Grammar", "severity": "minor", "score": 1.5, "is_source_error": True},
    {"start": 2, "end": 9, "category": "Accuracy/Mistranslation", "severity": "critical", "score": 0},
]


def _write(path, lines: list[str]) -> None:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_cached_ratings_equal_a_fresh_parse(tmp_path):
    path = tmp_path / "zh-en.mqm.rater1.seg.rating"
    _write(path, [_line("sysA", ERRORS[:2]), _line("sysA", None), _line("sysA", []),
                  _line("sysB", ERRORS[2:]), _line("sysB", ERRORS), _line("sysB", None)])
    cache = ScoreCache(tmp_path / "cache")
    fresh = parse_ratings(path, path.read_bytes())
    first = read_ratings(path, 3, cache)
    second = read_ratings(path, 3, ScoreCache(tmp_path / "cache"))  # a new process: from the entry on disk
    assert first == fresh and second == fresh
    assert list(second) == ["sysA", "sysB"]
    assert second["sysB"][1][1].score == 1.5 and second["sysB"][1][0].score is None
    assert second["sysA"][0][1].is_source_error and second["sysA"][2] == ()
    assert second["sysA"][1] is None


def test_a_changed_rating_file_is_read_again(tmp_path):
    path = tmp_path / "zh-en.mqm.rater1.seg.rating"
    _write(path, [_line("sysA", ERRORS[:1])])
    cache = ScoreCache(tmp_path / "cache")
    assert read_ratings(path, cache=cache)["sysA"][0][0].severity == "major"
    old = os.stat(path)
    _write(path, [_line("sysA", ERRORS[2:])])
    os.utime(path, ns=(old.st_atime_ns, old.st_mtime_ns))  # mtime restored: the ctime and content still differ
    again = read_ratings(path, cache=ScoreCache(tmp_path / "cache"))
    assert again == parse_ratings(path, path.read_bytes())
    assert again["sysA"][0][0].severity == "critical"

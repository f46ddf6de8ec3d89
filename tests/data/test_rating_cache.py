"""Rating files through the parsed-data cache: exactly a fresh parse, and a changed file is read again."""

from __future__ import annotations

import json
import os

import pytest

from tribunal.data.ratings import parse_ratings, read_ratings
from tribunal.data.score_cache import ScoreCache


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


def test_wmt23_zh_en_rating_files_read_through_the_cache_equal_a_fresh_parse(wmt23_root, tmp_path):
    from tribunal.data.mtme import LanguagePair

    pair = LanguagePair(wmt23_root, "zh-en", cache=ScoreCache(tmp_path / "cache"))
    assert len(pair.rating_names) == 8  # mqm.rater1 ... mqm.rater8
    for name in pair.rating_names:
        path = wmt23_root / "human-scores" / f"zh-en.{name}.seg.rating"
        fresh = parse_ratings(path, path.read_bytes())
        assert pair.ratings(name) == fresh  # parsed, then stored
        later = ScoreCache(tmp_path / "cache")  # the next run: served from the entry, the file not parsed
        assert read_ratings(path, pair.n_segments, later) == fresh
        assert later.stats["parsed"] == 0 and later.stats["hit"] + later.stats["verified"] == 1


def test_a_copied_real_rating_file_changed_in_place_is_parsed_again(wmt23_root, tmp_path):
    source = wmt23_root / "human-scores" / "zh-en.mqm.rater1.seg.rating"
    path = tmp_path / "zh-en.mqm.rater1.seg.rating"
    path.write_bytes(source.read_bytes())
    cache = ScoreCache(tmp_path / "cache")
    before = read_ratings(path, cache=cache)
    lines = path.read_text(encoding="utf-8").splitlines()
    rated = next(k for k, line in enumerate(lines) if '"errors": [{' in line or '"errors":[{' in line)
    system = lines[rated].partition("\t")[0]
    lines[rated] = f"{system}\tNone"  # one rated cell becomes unrated; the size changes too
    old = os.stat(path)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    os.utime(path, ns=(old.st_atime_ns, old.st_mtime_ns))
    again = ScoreCache(tmp_path / "cache")
    after = read_ratings(path, cache=again)
    assert again.stats["parsed"] == 1 and after == parse_ratings(path, path.read_bytes()) and after != before
    block = lines[:rated + 1]
    assert after[system][sum(line.startswith(system + "\t") for line in block) - 1] is None


def test_a_cached_block_reads_like_the_list_a_fresh_parse_gives(tmp_path):
    path = tmp_path / "zh-en.mqm.rater1.seg.rating"
    _write(path, [_line("sysA", ERRORS[:2]), _line("sysA", None), _line("sysA", []),
                  _line("sysB", ERRORS[2:]), _line("sysB", ERRORS), _line("sysB", None)])
    fresh = parse_ratings(path, path.read_bytes())
    read_ratings(path, 3, ScoreCache(tmp_path / "cache"))
    cached = read_ratings(path, 3, ScoreCache(tmp_path / "cache"))
    for system, block in cached.items():
        expected = fresh[system]
        assert len(block) == len(expected) and block[-1] == expected[-1] and block[0:2] == expected[0:2]
        first = block[1]
        assert block[1] is first  # built once
        assert list(block) == expected and block == expected and expected == block  # read in full, both ways
        assert block[1] is first or block[1] == first
        with pytest.raises(IndexError):
            block[3]
    assert cached["sysB"][1] == fresh["sysB"][1] and len(cached["sysB"][1]) == 3
    assert cached["sysA"] != fresh["sysB"]

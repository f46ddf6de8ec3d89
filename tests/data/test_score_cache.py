"""The parsed-data cache of score files: it returns exactly what a fresh parse returns, notices every
change of a file (even with its size and mtime restored), survives damaged entries and two
processes filling it at once."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from tribunal.data import score_cache
from tribunal.data.errors import DataFormatError
from tribunal.data.score_cache import ScoreCache
from tribunal.data.score_files import read_domain_scores, read_seg_scores, read_sys_scores
from tests.conftest import write

READERS = {"seg": read_seg_scores, "sys": read_sys_scores, "domain": read_domain_scores}


def reader_of(path: Path):
    return READERS[path.name.rsplit(".", 2)[1]]


def assert_same(got: dict, expected: dict) -> None:
    """Same keys in the same order, equal values and equal None (NaN) masks."""
    assert list(got) == list(expected)
    for key in expected:
        a, b = np.asarray(got[key], float), np.asarray(expected[key], float)
        assert a.shape == b.shape and np.array_equal(np.isnan(a), np.isnan(b)), key
        assert np.array_equal(a, b, equal_nan=True), key


def shipped_score_files(root: Path) -> list[Path]:
    return sorted([*root.glob("human-scores/*.score"), *root.glob("metric-scores/*/*.score")])


def test_every_shipped_score_file_reads_the_same_fresh_cold_and_warm(wmt23_root, tmp_path):
    files = shipped_score_files(wmt23_root)
    assert len(files) == 216
    cache = ScoreCache(tmp_path / "cache")
    fresh = {path: reader_of(path)(path) for path in files}
    for path in files:
        assert_same(reader_of(path)(path, cache=cache), fresh[path])
    assert cache.stats["parsed"] == len(files)
    warm = ScoreCache(tmp_path / "cache")  # a new process: only the entries on disk
    for path in files:
        assert_same(reader_of(path)(path, cache=warm), fresh[path])
    assert warm.stats == {"hit": len(files), "verified": 0, "parsed": 0}  # the shipped files are settled
    assert sum(1 for _ in (tmp_path / "cache").glob("*.bin")) == len(files)


def test_vectorised_parse_equals_pythons_float_on_every_shipped_file(wmt23_root):
    from tribunal.data.score_parsing import _careful_columns, _fast_columns, _strings

    for path in shipped_score_files(wmt23_root):
        columns = 3 if path.name.endswith(".domain.score") else 2
        content = path.read_bytes()
        fast = _fast_columns(content, columns)
        assert fast is not None, path  # no shipped file needs the careful path
        names, scores = _careful_columns(path, content, columns, "")
        assert [_strings(c) for c in fast[0]] == [_strings(c) for c in names], path
        assert np.array_equal(fast[1], scores, equal_nan=True), path


def seg_file(tmp_path: Path, text: str = "A\t0.25\nA\tNone\nB\t1.5\nB\t-2\n") -> Path:
    return write(tmp_path / "data" / "m-refA.seg.score", text)


def settle_now(monkeypatch) -> None:
    """Entries written from now on are settled (as if the file's last change were long ago)."""
    monkeypatch.setattr(score_cache, "SETTLE_NS", -10**18)


def change_keeping_size_and_mtime(path: Path, text: str) -> None:
    """Rewrite ``path`` with ``text`` (same length) and put its mtime back; wait until its ctime moved."""
    before = os.stat(path)
    assert len(text.encode()) == before.st_size
    while True:
        with open(path, "r+", encoding="utf-8") as handle:
            handle.write(text)
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        after = os.stat(path)
        if after.st_ctime_ns != before.st_ctime_ns:  # the clock ticked: the change is visible to stat
            break
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


@pytest.mark.parametrize("settled", [True, False], ids=["settled-entry", "fresh-entry"])
def test_changed_file_with_size_and_mtime_restored_is_reread(tmp_path, monkeypatch, settled):
    if settled:
        settle_now(monkeypatch)
    path = seg_file(tmp_path)
    cache = ScoreCache(tmp_path / "cache")
    assert read_seg_scores(path, 2, cache)["A"][0] == 0.25
    if settled:  # a second process trusts the entry without reading the file
        probe = ScoreCache(tmp_path / "cache")
        read_seg_scores(path, 2, probe)
        assert probe.stats["hit"] == 1
    change_keeping_size_and_mtime(path, "A\t0.75\nA\tNone\nB\t1.5\nB\t-3\n")
    again = ScoreCache(tmp_path / "cache")
    scores = read_seg_scores(path, 2, again)
    assert scores["A"][0] == 0.75 and scores["B"][1] == -3.0
    assert again.stats["parsed"] == 1


def test_unsettled_entry_is_checked_by_content_even_if_every_stat_field_is_equal(tmp_path, monkeypatch):
    """The same clock tick: a change stat cannot see is still caught by the content hash."""
    path = seg_file(tmp_path)
    cache = ScoreCache(tmp_path / "cache")
    read_seg_scores(path, 2, cache)
    entry = next((tmp_path / "cache").glob("*.bin"))
    header, parsed = score_cache._decode(bytearray(entry.read_bytes()))
    assert header["settled"] is False
    path.write_text("A\t0.75\nA\tNone\nB\t1.5\nB\t-3\n")
    header["identity"] = score_cache._identity(os.stat(path))  # pretend stat saw nothing change
    entry.write_bytes(score_cache._encode(header, parsed))
    assert read_seg_scores(path, 2, ScoreCache(tmp_path / "cache"))["A"][0] == 0.75


def test_truncated_and_replaced_files_are_reread(tmp_path, monkeypatch):
    settle_now(monkeypatch)
    path = seg_file(tmp_path)
    cache_dir = tmp_path / "cache"
    read_seg_scores(path, 2, ScoreCache(cache_dir))
    before = os.stat(path)
    with open(path, "r+b") as handle:  # truncated: one system's block is now short
        handle.truncate(len(b"A\t0.25\nA\tNone\nB\t1.5\n"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    with pytest.raises(DataFormatError, match=r":3: system 'B' has 1 lines but the source has 2"):
        read_seg_scores(path, 2, ScoreCache(cache_dir))
    # replaced: a new file of the original size renamed over it, mtime restored
    replacement = write(tmp_path / "new.seg.score", "A\t0.50\nA\tNone\nB\t1.5\nB\t-2\n")
    assert replacement.stat().st_size == before.st_size
    os.utime(replacement, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(replacement, path)
    assert read_seg_scores(path, 2, ScoreCache(cache_dir))["A"][0] == 0.5


def test_touched_file_costs_a_hash_not_a_parse(tmp_path, monkeypatch):
    settle_now(monkeypatch)
    path = seg_file(tmp_path)
    read_seg_scores(path, 2, ScoreCache(tmp_path / "cache"))
    os.utime(path, ns=(1, 1))
    cache = ScoreCache(tmp_path / "cache")
    assert_same(read_seg_scores(path, 2, cache), read_seg_scores(path, 2))
    assert cache.stats == {"hit": 0, "verified": 1, "parsed": 0}
    settled = ScoreCache(tmp_path / "cache")
    read_seg_scores(path, 2, settled)  # the entry was re-keyed to the new mtime
    assert settled.stats["hit"] == 1


@pytest.mark.parametrize("damage", [b"", b"TRIBSC01\x05\x00\x00\x00{bad}", b"garbage" * 10, "truncate"])
def test_damaged_or_foreign_entry_is_a_miss_and_is_rewritten(tmp_path, damage):
    path = seg_file(tmp_path)
    cache_dir = tmp_path / "cache"
    expected = read_seg_scores(path, 2, ScoreCache(cache_dir))
    entry = next(cache_dir.glob("*.bin"))
    entry.write_bytes(entry.read_bytes()[:-3] if damage == "truncate" else damage)
    cache = ScoreCache(cache_dir)
    assert_same(read_seg_scores(path, 2, cache), expected)
    assert cache.stats["parsed"] == 1
    assert score_cache._decode(bytearray(entry.read_bytes()))[1].strings["systems"] == ["A", "B"]


@pytest.mark.parametrize("text, line, fragment", [
    ("A\t1.0\nA\tabc\n", 2, "score 'abc' is not a number or None"),
    ("A\t1.0\nA\t1.0\t3\n", 2, "expected 2 tab-separated columns (SYSTEM, score), found 3"),
    ("A\t1.0\nA\tnan\n", 2, "score is NaN; write None for an unrated cell"),
    ("A\t1.0\nA\tinf\n", 2, "score 'inf' is not finite; write None for an unrated cell"),
    ("A\t1.0\n\nA\t2\n", 2, "expected 2 tab-separated columns (SYSTEM, score), found 1"),
    ("A\t1.0\nB\xff\t2\n", 2, "not valid UTF-8"),
])
def test_malformed_file_gives_the_same_error_with_the_cache_warm_from_a_good_version(tmp_path, text, line, fragment):
    path = seg_file(tmp_path, "A\t1.0\nA\t2.0\n")
    cache_dir = tmp_path / "cache"
    read_seg_scores(path, 2, ScoreCache(cache_dir))
    path.write_bytes(text.encode("latin-1"))  # \xff: a byte that is not UTF-8
    for cache in (None, ScoreCache(cache_dir), ScoreCache(cache_dir)):
        with pytest.raises(DataFormatError) as err:
            read_seg_scores(path, 2, cache)
        assert str(err.value) == f"{path}:{line}: {fragment}"


@pytest.mark.parametrize("failing", ["write", "rename"])
def test_a_failed_entry_write_leaves_neither_entry_nor_temporary_file(tmp_path, monkeypatch, failing):
    """A full disk in the middle of a write, or a failed rename: the old entry (here none) stays whole."""
    path = seg_file(tmp_path)
    if failing == "rename":
        monkeypatch.setattr(score_cache.os, "replace", lambda *a: (_ for _ in ()).throw(OSError(28, "No space")))
    else:
        monkeypatch.setattr(score_cache, "_encode", lambda *a: (_ for _ in ()).throw(OSError(28, "No space")))
    assert_same(read_seg_scores(path, 2, ScoreCache(tmp_path / "cache")), read_seg_scores(path, 2))
    assert list((tmp_path / "cache").iterdir()) == []


def test_an_entry_is_replaced_whole(tmp_path, monkeypatch):
    """Until the new entry is complete, a reader finds the old one whole (it is renamed over, never rewritten)."""
    path = seg_file(tmp_path)
    cache_dir = tmp_path / "cache"
    read_seg_scores(path, 2, ScoreCache(cache_dir))
    entry = next(cache_dir.glob("*.bin"))
    real_replace, seen = os.replace, []

    def replace(source, target):
        seen.append(score_cache._decode(bytearray(Path(target).read_bytes()))[1].arrays["scores"][0])
        assert score_cache._decode(bytearray(Path(source).read_bytes()))[1].arrays["scores"][0] == 0.75
        real_replace(source, target)

    monkeypatch.setattr(score_cache.os, "replace", replace)
    path.write_text("A\t0.75\nA\tNone\nB\t1.5\nB\t-2\n")
    assert read_seg_scores(path, 2, ScoreCache(cache_dir))["A"][0] == 0.75
    assert seen == [0.25]  # the old entry, whole, right up to the rename
    assert score_cache._decode(bytearray(entry.read_bytes()))[1].arrays["scores"][0] == 0.75


def test_unwritable_cache_folder_only_costs_the_speed_up(tmp_path):
    blocker = write(tmp_path / "not-a-folder", "")
    path = seg_file(tmp_path)
    assert_same(read_seg_scores(path, 2, ScoreCache(blocker / "cache")), read_seg_scores(path, 2))


FILLER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from tribunal.data.score_cache import ScoreCache
    from tribunal.data.score_files import read_domain_scores, read_seg_scores, read_sys_scores
    readers = {"seg": read_seg_scores, "sys": read_sys_scores, "domain": read_domain_scores}
    cache_dir, go, order = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    files = [Path(p) for p in sys.argv[4:]]
    files = files if order == "forward" else files[::-1]
    while not go.exists():  # start together
        time.sleep(0.001)
    for _ in range(3):
        cache = ScoreCache(cache_dir)
        for path in files:
            readers[path.name.rsplit(".", 2)[1]](path, cache=cache)
        for entry in cache_dir.glob("*.bin"):  # empty it behind the other process's back
            entry.unlink(missing_ok=True)
    cache = ScoreCache(cache_dir)
    for path in files:
        readers[path.name.rsplit(".", 2)[1]](path, cache=cache)
""")


def test_two_processes_filling_the_cache_at_once_leave_it_valid(wmt23_root, tmp_path):
    files = [p for p in shipped_score_files(wmt23_root) if "/en-de" in str(p) or "en-de." in p.name]
    cache_dir, go = tmp_path / "cache", tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, "-c", FILLER, str(cache_dir), str(go), order, *map(str, files)],
                              stderr=subprocess.PIPE, text=True) for order in ("forward", "backward")]
    go.touch()
    for proc in procs:
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
    assert not list(cache_dir.glob(".*.tmp"))  # no temporary file left behind
    entries = list(cache_dir.glob("*.bin"))
    assert len(entries) == len(files)
    for entry in entries:
        score_cache._decode(bytearray(entry.read_bytes()))  # every entry whole
    warm = ScoreCache(cache_dir)
    for path in files:
        assert_same(reader_of(path)(path, cache=warm), reader_of(path)(path))
    assert warm.stats["parsed"] == 0


def test_carriage_returns_read_as_text_mode_reads_them(tmp_path):
    """CRLF (and lone CR) line ends: the careful parse, with universal newlines as before."""
    lf = read_seg_scores(seg_file(tmp_path), 2)
    crlf = write(tmp_path / "crlf.seg.score", "")
    crlf.write_bytes(b"A\t0.25\r\nA\tNone\r\nB\t1.5\rB\t-2\r\n")
    assert_same(read_seg_scores(crlf, 2, ScoreCache(tmp_path / "cache")), lf)

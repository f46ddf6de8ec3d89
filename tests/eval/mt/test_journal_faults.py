"""The journal on a full disk: it ends in whole lines, and the run that hit the wall says how to resume."""

from __future__ import annotations

import errno
import os

import pytest

from tests.support.mounts import full_disk
from tribunal.core.item_result import ItemResult
from tribunal.eval.mt.journal import Journal, JournalWriteError

SIGNATURE = "prog:mmad|v:1"


def lines_of(path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    assert text.endswith("\n"), "the journal ends in a whole line"
    return text.splitlines()


def test_retryable_items_are_judged_again_and_permanent_ones_only_when_asked(tmp_path):
    journal = Journal(tmp_path / "j.jsonl", SIGNATURE)
    journal.append(ItemResult(key="ok", status="scored", score=-1.0))
    journal.append(ItemResult(key="outage", status="unscored", reason="server error", retryable=True))
    journal.append(ItemResult(key="garbled", status="unscored", reason="unparseable answer"))
    reopened = Journal(tmp_path / "j.jsonl", SIGNATURE)
    assert [reopened.done(k) for k in ("ok", "outage", "garbled", "new")] == [True, False, True, False]
    assert [reopened.done(k, retry_unscored=True) for k in ("ok", "outage", "garbled")] == [True, False, False]


def test_an_append_cut_short_by_a_full_disk_is_rolled_back(tmp_path, monkeypatch):
    path = tmp_path / "j.jsonl"
    journal = Journal(path, SIGNATURE)
    journal.append(ItemResult(key="a", status="scored", score=-1.0))
    before = path.read_bytes()
    real_write = os.write

    def half_then_full(fd, data):  # the kernel takes part of the line, then the disk is full
        if os.readlink(f"/proc/self/fd/{fd}") != str(path):
            return real_write(fd, data)
        if len(data) > 8:
            return real_write(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", half_then_full)
    with pytest.raises(JournalWriteError, match=r"j\.jsonl: cannot append to the journal: No space left on device"):
        journal.append(ItemResult(key="b", status="scored", score=-2.0, transcript=[{"stage": "gemba", "x": "y" * 200}]))
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert set(Journal(path, SIGNATURE).results) == {"a"}


def test_a_journal_on_a_really_full_disk_keeps_whole_lines(tmp_path):
    with full_disk(tmp_path / "disk", free_bytes=12 * 1024) as disk:
        path = disk / "j.jsonl"
        journal = Journal(path, SIGNATURE)
        written = 0
        with pytest.raises(JournalWriteError, match="No space left on device"):
            for number in range(1000):
                journal.append(ItemResult(key=f"k{number}", status="scored", score=-1.0,
                                          transcript=[{"stage": "gemba", "turn": "z" * 1500}]))
                written += 1
        assert 1 <= written < 1000
        assert len(lines_of(path)) == written + 1  # header + every appended item, nothing torn
        assert set(Journal(path, SIGNATURE).results) == {f"k{n}" for n in range(written)}
        assert not [p for p in disk.iterdir() if p.name.endswith(".tmp")]

"""`tribunal data fetch` against an archive served on 127.0.0.1 (no internet needed)."""

from __future__ import annotations

import functools
import http.server
import io
import subprocess
import sys
import tarfile
import threading
from pathlib import Path

import pytest

from tribunal.data.errors import DataFormatError
from tribunal.data.fetch import extract_test_set


def make_archive(path: Path, members: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


@pytest.fixture
def served(tmp_path):
    """A directory served over HTTP on 127.0.0.1; yields (folder, base URL)."""
    folder = tmp_path / "www"
    folder.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    handler.log_message = lambda *a, **k: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield folder, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


ARCHIVE = {
    "mt-metrics-eval-v2/wmt23/sources/en-de.txt": b"hello\n",
    "mt-metrics-eval-v2/wmt23/human-scores/en-de.mqm.sys.score": b"A\t-1\n",
    "mt-metrics-eval-v2/wmt22/sources/en-de.txt": b"other set\n",
}


def test_fetch_downloads_and_unpacks_only_wmt23(tmp_path, served):
    folder, url = served
    make_archive(folder / "mtme.tgz", ARCHIVE)
    dest = tmp_path / "data"
    result = subprocess.run(
        [sys.executable, "-m", "tribunal", "data", "fetch", "wmt23", "--dest", str(dest), "--url", f"{url}/mtme.tgz"],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert (dest / "wmt23" / "sources" / "en-de.txt").read_text() == "hello\n"
    assert not (dest / "wmt22").exists()
    assert [p.name for p in dest.iterdir()] == ["wmt23"]  # no temporary leftovers

    again = subprocess.run(
        [sys.executable, "-m", "tribunal", "data", "fetch", "wmt23", "--dest", str(dest), "--url", f"{url}/mtme.tgz"],
        capture_output=True, text=True, timeout=120,
    )
    assert again.returncode == 2 and "already exists (use --force" in again.stderr


def test_fetch_reports_http_errors(tmp_path, served):
    _, url = served
    result = subprocess.run(
        [sys.executable, "-m", "tribunal", "data", "fetch", "wmt23", "--dest", str(tmp_path / "d"), "--url", f"{url}/missing.tgz"],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 2 and "download of" in result.stderr and "404" in result.stderr
    assert not (tmp_path / "d" / "wmt23").exists()


def test_unsafe_and_wrong_archives_are_refused(tmp_path):
    evil = make_archive(tmp_path / "evil.tgz", {"../../etc/wmt23/sources/x.txt": b"x"})
    with pytest.raises(DataFormatError, match="unsafe path"):
        extract_test_set(evil, tmp_path / "out")
    other = make_archive(tmp_path / "other.tgz", {"top/wmt22/sources/x.txt": b"x"})
    with pytest.raises(DataFormatError, match="holds no wmt23/sources"):
        extract_test_set(other, tmp_path / "out")
    junk = tmp_path / "junk.tgz"
    junk.write_bytes(b"not a tar")
    with pytest.raises(DataFormatError, match="not a readable tar archive"):
        extract_test_set(junk, tmp_path / "out")
    assert not (tmp_path / "out" / "wmt23").exists()


def current_archive_members() -> dict[str, bytes]:
    """The current archive's shape: several test sets side by side, newer ones in the newer layouts."""
    from tests.data.newer_sets import wmt24_files, wmt25_files

    top = "mt-metrics-eval-v2"
    members = {f"{top}/wmt23/sources/en-de.txt": b"hello\n", f"{top}/wmt24pp/sources/en-de_DE.jsonl": b"{}\n"}
    members |= {f"{top}/wmt24/{path}": data for path, data in wmt24_files().items()}
    members |= {f"{top}/wmt25/{path}": data for path, data in wmt25_files().items()}
    return members


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tribunal", *args], capture_output=True, text=True, timeout=180)


def test_fetch_several_sets_of_the_current_archive_in_one_download(tmp_path, served):
    folder, url = served
    make_archive(folder / "mtme.tgz", current_archive_members())
    dest = tmp_path / "data"
    result = run("data", "fetch", "wmt24", "wmt25", "--dest", str(dest), "--url", f"{url}/mtme.tgz")
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in dest.iterdir()) == ["wmt24", "wmt25"]  # nothing else, no leftovers
    assert (dest / "wmt25" / "sources" / "en-cs_CZ.jsonl").is_file()

    check = run("data", "check", "--data", str(dest / "wmt25"))
    assert check.returncode == 0, check.stderr
    assert "en-cs_CZ: 4 segments, 5 outputs, gold esa-human1" in check.stdout

    table = run("mt", "meta-eval", "--data", str(dest / "wmt25"), "--no-track", "--output", str(tmp_path / "t.tsv"))
    assert table.returncode == 0, table.stderr
    header = (tmp_path / "t.tsv").read_text().splitlines()[0].split("\t")
    assert header == ["metric", "avg_corr", "en-cs_CZ_sys_spa", "en-cs_CZ_seg_acc_eq"]  # the set's own protocol


def test_fetch_refuses_unknown_or_absent_sets_and_writes_nothing(tmp_path, served):
    folder, url = served
    members = {k: v for k, v in current_archive_members().items() if "/wmt24pp/" not in k}
    make_archive(folder / "mtme.tgz", members)
    dest = tmp_path / "data"
    unknown = run("data", "fetch", "wmt99", "--dest", str(dest), "--url", f"{url}/mtme.tgz")
    assert unknown.returncode == 2 and "unknown test set 'wmt99' (available: wmt23, wmt24, wmt24pp, wmt25)" in unknown.stderr
    absent = run("data", "fetch", "wmt25", "wmt24pp", "--dest", str(dest), "--url", f"{url}/mtme.tgz")
    assert absent.returncode == 2
    assert absent.stderr.strip().splitlines() == [f"tribunal: error: {absent.stderr.split('error: ')[1].strip()}"]
    assert "archive holds no wmt24pp/sources folder" in absent.stderr
    assert not dest.exists() or list(dest.iterdir()) == []  # wmt25 was not left behind either

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

from tribunal.eval.data.errors import DataFormatError
from tribunal.eval.data.fetch import extract_test_set


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

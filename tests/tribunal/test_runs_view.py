"""``tribunal runs view``: the page's path from a folder or file, a clear error otherwise; --serve's server."""

from __future__ import annotations

import threading
import urllib.error
import urllib.request

import pytest
from typer.testing import CliRunner

from tribunal.cli import app
from tribunal.cli.page_server import page_server


def test_view_prints_the_page_of_a_folder_or_a_file(tmp_path):
    (tmp_path / "report.html").write_text("<p>page</p>", encoding="utf-8")
    for given in (tmp_path, tmp_path / "report.html"):
        result = CliRunner().invoke(app, ["runs", "view", str(given)])
        assert result.exit_code == 0 and result.output.strip() == str(tmp_path / "report.html")
    empty = tmp_path / "empty"
    empty.mkdir()
    result = CliRunner().invoke(app, ["runs", "view", str(empty)])
    assert result.exit_code != 0 and "no report.html or compare.html" in str(result.exception)
    result = CliRunner().invoke(app, ["runs", "view", str(tmp_path / "nowhere")])
    assert result.exit_code != 0 and "no such folder or file" in str(result.exception)


def test_the_server_serves_the_page_and_nothing_else(tmp_path):
    page = tmp_path / "report.html"
    page.write_text("<p>the page</p>", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("not served", encoding="utf-8")
    server = page_server(page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        host, port = server.server_address
        assert host == "127.0.0.1"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as answer:
            assert answer.read() == page.read_bytes() and answer.headers["Content-Type"].startswith("text/html")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/secret.txt", timeout=5)
        assert refused.value.code == 404
    finally:
        server.shutdown()
        server.server_close()

"""A local model server that dies mid-run: named in one line, restarted once, nothing lost; twice: the run stops.

The stand-in for llama.cpp's server (``tests/support/fake_llama_server.py``) kills itself with SIGSEGV
on its 3rd chat request while its crash file has crashes left, as llama.cpp's AMX-repacked build
does inside a VM; every answer it gives is counted in a file, so "nothing lost" is checked against
what the server itself answered.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tests.support.cli import run_cli
from tests.support.fake_llama_server import serve_stand_in
from tribunal.programs import local_models
from tribunal.programs.local_server import LocalServer
from tribunal.programs.llama_no_repack import MARK_OFF, MARK_UNAVAILABLE
from tribunal.programs.server_log import LOGS_ENV, exit_description

REPO = Path(__file__).resolve().parents[2]
ITEMS = 6


@pytest.fixture
def crashing(tmp_path, monkeypatch):
    """``(gguf, crashes file, answered file)``: a stand-in server whose crashes are counted down in a file."""
    serve_stand_in(monkeypatch)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv(LOGS_ENV, str(tmp_path / "logs"))
    monkeypatch.setenv("FAKE_LLAMA_ANSWER", json.dumps({"errors": []}))
    monkeypatch.setenv("FAKE_LLAMA_CRASHES", str(tmp_path / "crashes"))
    monkeypatch.setenv("FAKE_LLAMA_CRASH_AT", "3")
    monkeypatch.setenv("FAKE_LLAMA_ANSWERED", str(tmp_path / "answered"))
    monkeypatch.delenv(local_models.SERVERS_ENV, raising=False)
    model = tmp_path / "tiny.gguf"
    model.write_bytes(b"GGUF")
    return model, tmp_path / "crashes", tmp_path / "answered"


def _evaluate(capsys, model: Path, out: Path):
    return run_cli(capsys, "mt", "evaluate", "--lp", "zh-en", "--rated-only", "--limit", ITEMS, "--concurrency", "1",
                   "--program", "gemba-mqm", "--lm", f"local/{model}", "--no-cache", "--no-track", "--out", out)


def _answered(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines()) if path.exists() else 0


def _rows(out: Path) -> list[dict]:
    journals = list(out.glob("journal-*.jsonl"))
    assert len(journals) == 1, journals
    rows = [json.loads(line) for line in journals[0].read_text(encoding="utf-8").splitlines() if line.strip()]
    return [row for row in rows if "key" in row]  # the first line is the journal's header


def test_a_server_killed_by_sigsegv_is_named_restarted_and_nothing_is_lost(crashing, tmp_path, capsys, wmt23_root):
    model, crashes, answered = crashing
    crashes.write_text("1")
    outcome = _evaluate(capsys, model, tmp_path / "out")
    assert outcome.status == 0, outcome.err[-3000:]
    assert crashes.read_text() == "0", "the server did crash once"
    deaths = [line for line in outcome.err_lines if "SIGSEGV" in line]
    assert len(deaths) == 1, outcome.err
    death = deaths[0]
    assert "was killed by SIGSEGV" in death and "restarted it once, on the same port" in death
    assert "repacking" in death and "sent again" in death
    log = Path(re.search(r"log: (\S+\.log),", death).group(1))
    assert log.is_file() and log.parent == tmp_path / "logs"  # the named log outlives the server
    assert "repacking q4_1 weights (fake)" in death  # the log's last lines are quoted
    text = log.read_text(encoding="utf-8")
    assert MARK_OFF in text or MARK_UNAVAILABLE in text  # the restart asked for the safer configuration
    rows = _rows(tmp_path / "out")
    assert len(rows) == ITEMS and all(r["status"] == "scored" for r in rows)  # nothing lost
    assert f"scored {ITEMS}, unscored 0" in outcome.out
    calls = int(re.search(r"(\d+) answered by the provider", outcome.out + outcome.err).group(1))
    assert calls == _answered(answered) == ITEMS  # the call in flight was re-sent and answered once
    assert "connection error" not in outcome.out + outcome.err
    assert "rerun the same command" not in outcome.out + outcome.err
    assert local_models.started() == []


def test_a_server_that_dies_again_stops_the_run_and_keeps_the_journal(crashing, tmp_path, capsys, wmt23_root):
    model, crashes, answered = crashing
    crashes.write_text("2")
    outcome = _evaluate(capsys, model, tmp_path / "out")
    assert outcome.status == 2, outcome.err[-3000:]
    assert "Traceback" not in outcome.err
    errors = [line for line in outcome.err_lines if line.startswith("tribunal: error: ")]
    assert len(errors) == 1, outcome.err
    assert "was killed by SIGSEGV" in errors[0] and "after its one restart, so the run stops" in errors[0]
    assert "log: " in errors[0] and "items are journaled" in errors[0]
    assert "rerun the same command" not in outcome.err
    rows = _rows(tmp_path / "out")
    kept = _answered(answered)
    assert 2 <= kept < ITEMS and len(rows) == kept  # every answer before the second crash, journaled as it landed
    assert all(r["status"] == "scored" for r in rows)
    assert f"{kept} of {ITEMS} items are journaled" in errors[0]


def test_a_call_after_the_restart_reaches_the_same_address(crashing, tmp_path):
    model, crashes, _ = crashing
    crashes.write_text("1")
    said: list[str] = []
    with LocalServer(model, alias="tiny", notify=said.append) as server:
        before = server.api_base
        os.kill(server.process.pid, 11)
        server.recover()  # what a call does after its connection error
        assert server.api_base == before and server.answers() and server.restarts == 1
        assert len(said) == 1 and "SIGSEGV" in said[0]
        assert "--no-repack" in server.process.args


@pytest.mark.parametrize(("status", "words"), [(-11, "was killed by SIGSEGV"), (-9, "was killed by SIGKILL"),
                                               (3, "exited with status 3")])
def test_an_exit_is_told_by_its_signal_name_or_status(status, words):
    assert exit_description(status) == words


def test_the_equivalence_judge_stops_too_when_the_server_is_lost(crashing, tmp_path, capsys, monkeypatch):
    model, crashes, _ = crashing
    crashes.write_text("2")
    monkeypatch.setenv("FAKE_LLAMA_CRASH_AT", "1")
    lines = (REPO / "eval" / "equiv" / "suite" / "heldout_pairs.jsonl").read_text(encoding="utf-8").splitlines()[:2]
    (tmp_path / "pairs.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    outcome = run_cli(capsys, "equiv", "audit", "--rules", "llm", "--pairs", tmp_path / "pairs.jsonl", "--repeats", "1",
                      "--threads", "1", "--lm", f"local/{model}", "--no-cache", "--no-track", "--out", tmp_path / "audit")
    assert outcome.status == 2, outcome.err[-3000:]
    errors = [line for line in outcome.err_lines if line.startswith("tribunal: error: ")]
    assert len(errors) == 1 and "after its one restart, so the run stops" in errors[0], outcome.err
    assert "Traceback" not in outcome.err

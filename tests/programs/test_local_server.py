"""The local model's server: started, health-checked, stopped on exit, on errors, on Ctrl-C; nothing left running.

These tests run a stand-in for llama.cpp's server (``tests/support/fake_llama_server.py``, through
the ``server_module_override`` hook), so they need neither the ``local`` extra nor a model;
the real server is exercised by the real-model tier (``tests/real_model/``).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.cli import assert_one_line_error, run_cli
from tests.support.fake_llama_server import STAND_IN_PRELUDE, serve_stand_in, stand_in_cli
from tribunal.programs import local_models, local_server
from tribunal.programs.local_server import LocalServer, LocalServerError

REPO = Path(__file__).resolve().parents[2]
WAIT = 60.0  # a bound on waiting for a process to appear or go (never an assertion about speed)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (ended, not yet reaped by its parent) is gone for our purposes
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {WAIT:g} s for {what}")
        time.sleep(0.1)


@pytest.fixture
def stand_in(tmp_path, monkeypatch) -> Path:
    """A fake GGUF file served by the stand-in server; its pid lands in tmp_path/server.pid."""
    serve_stand_in(monkeypatch)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("FAKE_LLAMA_PID_FILE", str(tmp_path / "server.pid"))
    monkeypatch.delenv(local_models.SERVERS_ENV, raising=False)
    model = tmp_path / "tiny.gguf"
    model.write_bytes(b"GGUF")
    return model


def server_pid(tmp_path: Path) -> int:
    return int((tmp_path / "server.pid").read_text())


def test_started_health_checked_and_stopped(stand_in, tmp_path):
    with LocalServer(stand_in, alias="tiny", threads=2) as server:
        assert server.answers() and server.running()
        pid = server_pid(tmp_path)
        assert alive(pid)
        assert "--n_threads" in server.command() and "127.0.0.1" in server.command()
    wait_for(lambda: not alive(pid), "the server to stop")
    assert not server.running()


def test_stopped_when_the_work_fails(stand_in, tmp_path):
    with pytest.raises(RuntimeError):
        with LocalServer(stand_in):
            pid = server_pid(tmp_path)
            raise RuntimeError("the run failed")
    wait_for(lambda: not alive(pid), "the server to stop")


def test_a_server_that_dies_while_starting_is_one_error_with_its_last_words(stand_in, monkeypatch):
    monkeypatch.setenv("FAKE_LLAMA_FAIL", "error: failed to load model: out of memory")
    with pytest.raises(LocalServerError) as caught:
        LocalServer(stand_in).start()
    message = str(caught.value)
    assert "exited with status 3" in message and "out of memory" in message and "\n" not in message


def test_the_server_ends_when_tribunal_is_killed(stand_in, tmp_path):
    script = (STAND_IN_PRELUDE + "import sys, time; from pathlib import Path; "
              "from tribunal.programs.local_server import LocalServer; "
              "LocalServer(Path(sys.argv[1])).start(); print('up', flush=True); time.sleep(600)")
    parent = subprocess.Popen([sys.executable, "-c", script, str(stand_in)], stdout=subprocess.PIPE, text=True,
                              cwd=REPO)
    try:
        assert parent.stdout.readline().strip() == "up"
        pid = server_pid(tmp_path)
        assert alive(pid)
    finally:
        parent.kill()  # SIGKILL: no atexit, no cleanup in tribunal; the watchdog must notice
        parent.wait()
    wait_for(lambda: not alive(pid), "the orphaned server to exit")


def _pairs(tmp_path: Path) -> Path:
    lines = (REPO / "eval" / "equiv" / "suite" / "heldout_pairs.jsonl").read_text(encoding="utf-8").splitlines()[:2]
    path = tmp_path / "pairs.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_command_starts_the_server_and_stops_it_when_it_ends(stand_in, tmp_path, capsys):
    outcome = run_cli(capsys, "equiv", "audit", "--rules", "llm", "--pairs", _pairs(tmp_path), "--repeats", "1",
                      "--lm", f"local/{stand_in}", "--no-track", "--out", tmp_path / "audit")
    assert outcome.status in (0, 3), outcome.err
    assert "Traceback" not in outcome.err
    pid = server_pid(tmp_path)
    wait_for(lambda: not alive(pid), "the server to stop with the command")
    assert local_models.started() == [] and local_models.SERVERS_ENV not in os.environ
    assert "135M" not in outcome.err  # a GGUF of the user's own is not the bundled toy model


def test_ctrl_c_stops_the_command_and_its_server(stand_in, tmp_path):
    env = {**os.environ, "FAKE_LLAMA_LATENCY": "1", "FAKE_LLAMA_ANSWER": "not an answer"}
    command = stand_in_cli("equiv", "audit", "--rules", "llm", "--pairs", str(_pairs(tmp_path)),
                           "--repeats", "3", "--threads", "1", "--lm", f"local/{stand_in}", "--no-track",
                           "--no-cache", "--out", str(tmp_path / "audit"))
    cli = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    try:
        wait_for(lambda: (tmp_path / "server.pid").exists(), "the server to start")
        pid = server_pid(tmp_path)
        cli.send_signal(signal.SIGINT)
        _, err = cli.communicate(timeout=WAIT)
    finally:
        if cli.poll() is None:
            cli.kill()
    assert cli.returncode == 130, err
    assert "Traceback" not in err
    wait_for(lambda: not alive(pid), "the server to stop after Ctrl-C")


def test_a_missing_gguf_file_is_one_line(tmp_path, capsys):
    outcome = run_cli(capsys, "equiv", "audit", "--rules", "llm", "--lm", f"local/{tmp_path / 'none.gguf'}",
                      "--no-track", "--out", tmp_path / "audit")
    assert_one_line_error(outcome, "no such GGUF file", "none.gguf")


def test_a_missing_bundled_model_names_what_to_install(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(local_models, "bundled_gguf", lambda: None)
    outcome = run_cli(capsys, "equiv", "audit", "--rules", "llm", "--lm", "local", "--no-track",
                      "--out", tmp_path / "audit")
    assert_one_line_error(outcome, "--lm local", "tribunal local install")


def test_a_missing_server_extra_names_what_to_install(tmp_path, capsys, monkeypatch):
    model = tmp_path / "tiny.gguf"
    model.write_bytes(b"GGUF")
    monkeypatch.setattr(local_server, "server_module_override", None)
    monkeypatch.setattr(local_models, "SERVER_MODULES", ("llama_cpp_not_installed_here",))
    outcome = run_cli(capsys, "equiv", "audit", "--rules", "llm", "--lm", f"local/{model}", "--no-track",
                      "--out", tmp_path / "audit")
    assert_one_line_error(outcome, "llama.cpp's server", "tribunal local install")


def test_local_with_an_api_base_is_refused(tmp_path, capsys):
    outcome = run_cli(capsys, "equiv", "audit", "--rules", "llm", "--lm", "local", "--api-base",
                      "http://127.0.0.1:9/v1", "--no-track", "--out", tmp_path / "audit")
    assert_one_line_error(outcome, "drop --api-base")


def test_a_run_on_the_bundled_model_says_what_its_judgments_are_worth():
    from tribunal.eval.tracking.run_names import description, run_notes

    notes = run_notes({"lm.task": "local", "threads": "1"})
    assert len(notes) == 1 and "135M" in notes[0] and "say nothing about quality" in notes[0]
    assert notes[0] in description("run", "sig", [], notes)
    assert run_notes({"lm": "openai/gpt-4o-mini"}) == [] and run_notes({"lm": "local/models/qwen-7b.gguf"}) == []


def test_demo_runs_on_the_local_model_when_the_extra_is_there(stand_in, tmp_path, capsys, monkeypatch, wmt23_root):
    import tribunal.eval.equiv.rules.embedding as embedding
    import tribunal.eval.meta.meta_eval_job as meta_eval_job

    monkeypatch.setattr(local_models, "bundled_gguf", lambda: stand_in)  # the stand-in plays the bundled model
    monkeypatch.setattr(local_models, "missing_local_extra", lambda: None)
    monkeypatch.setattr(embedding, "local_minilm_available", lambda: False)
    computed = meta_eval_job.run_meta_eval
    monkeypatch.setattr(meta_eval_job, "run_meta_eval", lambda data, *a, **k: computed(data, ["BLEU"], ["zh-en"],
                                                                                       *a[2:], **k))
    monkeypatch.setenv("TRIBUNAL_DATA", str(wmt23_root.parent))
    monkeypatch.delenv("TRIBUNAL_LM", raising=False)
    monkeypatch.setenv("FAKE_LLAMA_ANSWERED", str(tmp_path / "answered"))
    monkeypatch.setenv("FAKE_LLAMA_ANSWER", '{"errors": []}')  # GEMBA-MQM reads it (no error): the loop is tuned
    outcome = run_cli(capsys, "demo", "--no-track", "--no-cache", "--out", tmp_path / "demo")
    assert outcome.status == 0, outcome.err
    # the local model answered: HTTP 200s counted by the server itself, the same number the M-MAD step reports
    answered = len((tmp_path / "answered").read_text(encoding="utf-8").splitlines()) if (tmp_path / "answered").exists() else 0
    assert answered > 0, "the local model never answered during the demo"
    reported = [int(n) for n in re.findall(r"(\d+) answered by the provider", outcome.out)]
    assert reported and reported[0] > 0 and sum(reported) <= answered, outcome.out
    assert "connection error" not in (outcome.out + outcome.err).lower()
    assert "local model server for" not in outcome.err  # it never died (a death is said in one line)
    assert "M-MAD on 1 WMT23 zh-en item with local" in outcome.out
    assert "The LLM equivalence judge on 3 pairs of the suite with local" in outcome.out
    assert "5. GEMBA-MQM, untuned, on 2 WMT23 zh-en items with local" in outcome.out
    assert "8. The tuned GEMBA-MQM" in outcome.out and "step failed" not in outcome.err
    assert local_models.QUALITY_NOTICE in outcome.err
    wait_for(lambda: not alive(server_pid(tmp_path)), "the demo's server to stop")

"""``tribunal mt evaluate`` when the machine or the user gets in the way: full and read-only disks,
a busy output folder, a partial run, a credential in a name, Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import assert_one_line_error, run_cli
from tests.support.loopback import loopback_server
from tests.support.mounts import full_disk, read_only_folder
from tests.support.mqm_fakes import synthetic_judge
from tests.support.waiting import Gate, wait_for
from tribunal.cli.interrupts import FIRST_INTERRUPT
from tribunal.errors import EXIT_BUSY, EXIT_INTERRUPTED
from tribunal.data.folder_lock import folder_lock
from tribunal.eval.mt.items import item_key
from tribunal.core.item_result import ItemResult

from .helpers import KEY_ENV, SECRET, wmt23

TRIBUNAL = str(Path(sys.executable).parent / "tribunal")


def args(api_base: str, out, *extra, data=None, lp="zh-en", limit="6") -> list[str]:
    return ["mt", "evaluate", "--data", data or wmt23(), "--lp", lp, "--lm", "openai/loopback-judge", "--api-base",
            api_base, "--api-key-env", KEY_ENV, "--demos", "0", "--concurrency", "2", "--out", out, "--no-track",
            *(["--limit", limit] if limit else []), *extra]


@pytest.fixture(autouse=True)
def _key(monkeypatch, tmp_path):
    monkeypatch.setenv(KEY_ENV, SECRET)


def journal_lines(out: Path) -> list[ItemResult]:
    [path] = out.glob("journal-*.jsonl")
    text = path.read_text(encoding="utf-8")
    assert text.endswith("\n")
    return [ItemResult.model_validate_json(line) for line in text.splitlines()[1:]]


def test_a_read_only_out_fails_before_any_lm_call(tmp_path, capsys):
    with loopback_server(synthetic_judge) as (api_base, state), read_only_folder(tmp_path / "ro") as ro:
        outcome = run_cli(capsys, *args(api_base, ro / "out"))
        assert_one_line_error(outcome, f"--out {ro / 'out'}: cannot write in {ro}: Read-only file system")
        assert state.hits == [] and list(ro.iterdir()) == []


def test_a_full_disk_stops_the_run_with_whole_journal_lines_and_the_rerun_resumes(tmp_path, capsys):
    no_cache = tmp_path / "lm.json"  # only the journal may save calls
    no_cache.write_text('{"lm": {"cache": false}}')
    with loopback_server(synthetic_judge) as (api_base, state), \
            full_disk(tmp_path / "disk", free_bytes=20 * 1024) as disk:
        out = disk / "out"
        outcome = run_cli(capsys, *args(api_base, out, "--config", no_cache, limit="40"))
        line = assert_one_line_error(outcome, "cannot append to the journal: No space left on device",
                                     "rerun the same command to resume")
        kept = journal_lines(out)
        assert 1 <= len(kept) < 40 and f"({len(kept)} items journaled" in line
        assert not (out / "metric-scores").exists(), "no score file from a run that stopped"
        assert not [p for p in out.rglob("*.tmp")]
        (disk / ".filler").unlink()
        hits = len(state.hits)
        again = run_cli(capsys, *args(api_base, out, "--config", no_cache, limit="40"))
        assert again.status == 0, again.err
        assert f"resumed from journal {len(kept)}" in again.out
        resumed = {item_key(h[2]["source"], h[2]["translation"]) for h in state.hits[hits:] if "translation" in h[2]}
        assert resumed and not resumed & {r.key for r in kept}, "the journaled items cost no call"


def test_a_second_run_on_the_same_out_is_told_the_folder_is_busy(tmp_path, capsys):
    out = tmp_path / "out"
    with loopback_server(synthetic_judge) as (api_base, state), folder_lock(out):
        outcome = run_cli(capsys, *args(api_base, out))
        assert_one_line_error(outcome, f"--out {out}: busy: another tribunal run (pid {os.getpid()})",
                              status=EXIT_BUSY)
        assert state.hits == [] and not list(out.glob("journal-*"))


def test_a_refused_run_leaves_no_output_folder(tmp_path, capsys):
    out = tmp_path / "new" / "out"
    with loopback_server(synthetic_judge) as (api_base, state):
        outcome = run_cli(capsys, *args(api_base, out, "--systems", "NO-SUCH-SYSTEM"))
    assert_one_line_error(outcome, "zh-en: no system output for NO-SUCH-SYSTEM")
    assert state.hits == [] and not (tmp_path / "new").exists()


def test_a_partial_run_writes_no_system_scores_and_a_complete_one_does(tmp_path, capsys, tiny_mtme):
    out = tmp_path / "out"
    sys_file = out / "metric-scores" / "en-de" / "M-MAD-src.sys.score"
    with loopback_server(synthetic_judge) as (api_base, state):
        complete = run_cli(capsys, *args(api_base, out, data=tiny_mtme, lp="en-de", limit=None))
        assert complete.status == 0, complete.err
        assert sys_file.is_file() and "system scores: not written" not in complete.out
        hits = len(state.hits)
        partial = run_cli(capsys, *args(api_base, out, data=tiny_mtme, lp="en-de", limit="2"))
        assert len(state.hits) == hits, "the journal answered every item"
    assert partial.status == 0, partial.err
    assert "system scores: not written (--limit stopped the run at 2 items" in " ".join(partial.out.split())
    assert not sys_file.exists(), "the complete run's system scores do not describe this run's segments"
    assert (out / "metric-scores" / "en-de" / "M-MAD-src.seg.score").is_file()


def test_a_credential_never_names_a_file_or_a_run(tmp_path, capsys, monkeypatch):
    config = tmp_path / "run.toml"
    config.write_text(f'name = "M-{SECRET}"\n')
    out = tmp_path / "out"
    with loopback_server(synthetic_judge) as (api_base, state):
        outcome = run_cli(capsys, *args(api_base, out, "--config", config))
        line = assert_one_line_error(outcome, "name: Value error, holds a credential from the environment")
        assert SECRET not in line
        traversal = run_cli(capsys, *args(api_base, out, "--name", "../../escape"))
        assert_one_line_error(traversal, "name: Value error, use at most 100 letters, digits")
        assert state.hits == []
    assert not out.exists()


def test_ctrl_c_stops_cleanly_and_the_same_command_resumes(tmp_path):
    env = os.environ | {KEY_ENV: SECRET, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "DSPY_CACHEDIR": str(tmp_path / "c")}
    out = tmp_path / "out"
    with loopback_server(synthetic_judge) as (api_base, state):
        # Once three items are journaled the server holds every new call: the run is mid-way for sure.
        state.gate = gate = Gate(lambda: any(out.glob("journal-*.jsonl")) and len(journal_lines(out)) >= 3)
        command = [TRIBUNAL, *map(str, args(api_base, out, limit="60"))]
        process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_for(lambda: gate.held > 0 or process.poll() is not None, "the run to reach the held calls")
        process.send_signal(signal.SIGINT)
        notice = process.stderr.readline()  # said when the interrupt is handled: no new item starts after it
        gate.open()  # the items in flight finish into the journal
        _, stderr = process.communicate(timeout=120)
        stderr = notice + stderr
        kept = journal_lines(out)
        assert process.returncode == EXIT_INTERRUPTED, stderr
        assert stderr.strip().splitlines() == [FIRST_INTERRUPT,
            f"tribunal: interrupted: {len(kept)} items journaled; rerun the same command to resume"]
        assert 3 <= len(kept) < 60  # at most 8 x 2 + 16 items are in flight (judging.max_items_in_flight)
        assert not (out / "metric-scores").exists() and not (out / "errors.jsonl").exists()
        env["DSPY_CACHEDIR"] = str(tmp_path / "c2")  # only the journal may save calls
        hits = len(state.hits)
        resumed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
        assert resumed.returncode == 0, resumed.stderr
        assert f"resumed from journal {len(kept)}" in resumed.stdout
        again = {item_key(h[2]["source"], h[2]["translation"]) for h in state.hits[hits:] if "translation" in h[2]}
        assert again and not again & {r.key for r in kept}


def test_settings_refused_at_build_time_leave_no_journal(tmp_path, capsys):
    out = tmp_path / "out"
    with loopback_server(synthetic_judge) as (api_base, state):
        outcome = run_cli(capsys, *args(api_base, out, "--strategy", "shouting"))
    assert_one_line_error(outcome, "unknown debate strategy 'shouting'")
    assert state.hits == [] and not out.exists()

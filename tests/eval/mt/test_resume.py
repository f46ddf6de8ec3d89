"""Kill a run mid-way (SIGKILL, in a subprocess), rerun the same command: finished items cost no call."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tests.support.waiting import Gate, wait_for
from tribunal.eval.mt.items import item_key
from tribunal.core.item_result import ItemResult
from tribunal.eval.mt.journal import Journal

from .helpers import KEY_ENV, SECRET, wmt23

TRIBUNAL = str(Path(sys.executable).parent / "tribunal")


def command(api_base: str, out: Path, judging: str = "threads") -> list[str]:
    return [TRIBUNAL, "mt", "evaluate", "--judging", judging, "--data", str(wmt23()), "--lp", "zh-en", "--lm", "openai/loopback-judge",
            "--api-base", api_base, "--api-key-env", KEY_ENV, "--limit", "16", "--concurrency", "2",
            "--demos", "0", "--out", str(out), "--no-track"]


def journaled(out: Path) -> list[str]:
    journals = list(out.glob("journal-*.jsonl"))
    if not journals:
        return []
    lines = journals[0].read_text(encoding="utf-8").splitlines()[1:]
    return [ItemResult.model_validate_json(line).key for line in lines if line.endswith("}")]


def hit_keys(hits) -> set[str]:
    return {item_key(h[2]["source"], h[2]["translation"]) for h in hits if "translation" in h[2]}


@pytest.mark.slow
@pytest.mark.parametrize("judging", ["threads", "async"])
def test_killed_run_resumes_without_repeating_calls_and_matches_an_uninterrupted_run(tmp_path, judging):
    env = os.environ | {KEY_ENV: SECRET, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "DSPY_CACHEDIR": str(tmp_path / "c")}
    out, clean_out = tmp_path / "killed", tmp_path / "clean"
    with loopback_server(synthetic_judge) as (api_base, state):
        # Once four items are journaled the server holds every new call: the kill lands mid-run for sure.
        state.gate = gate = Gate(lambda: len(journaled(out)) >= 4)
        process = subprocess.Popen(command(api_base, out, judging), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        wait_for(lambda: gate.held > 0 or process.poll() is not None, "the run to reach the held calls")
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
        gate.open()
        finished = set(journaled(out))
        assert 4 <= len(finished) < 16, "killed mid-run"
        first_hits = len(state.hits)
        # Fresh response cache: only the journal may save the calls.
        env["DSPY_CACHEDIR"] = str(tmp_path / "c2")
        done = subprocess.run(command(api_base, out, judging), env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert "resumed from journal" in done.stdout
        resumed_hits = state.hits[first_hits:]
        assert hit_keys(resumed_hits), "the unfinished items were judged"
        assert not hit_keys(resumed_hits) & finished, "no LM call for an item finished before the kill"
        clean = subprocess.run(command(api_base, clean_out, judging), env=env | {"DSPY_CACHEDIR": str(tmp_path / "c3")},
                               capture_output=True, text=True, timeout=120)
        assert clean.returncode == 0, clean.stderr
    name = "metric-scores/zh-en/M-MAD-src.seg.score"
    assert (out / name).read_text() == (clean_out / name).read_text()
    assert len(set(journaled(out))) == 16


def test_journal_ignores_a_torn_last_line_and_refuses_another_configuration(tmp_path):
    path = tmp_path / "journal.jsonl"
    journal = Journal(path, "prog:mmad|v:1")
    journal.append(ItemResult(key="a", status="scored", score=-1.0))
    with path.open("a") as handle:
        handle.write('{"key": "b", "status": "sco')  # killed mid-write
    reopened = Journal(path, "prog:mmad|v:1")
    assert set(reopened.results) == {"a"} and reopened.done("a")
    reopened.append(ItemResult(key="b", status="unscored", reason="timeout"))
    assert set(Journal(path, "prog:mmad|v:1").results) == {"a", "b"}
    assert not Journal(path, "prog:mmad|v:1").done("b", retry_unscored=True)
    from tribunal.data.errors import DataFormatError

    with pytest.raises(DataFormatError, match="another configuration"):
        Journal(path, "prog:gemba-mqm|v:1")


def test_a_changed_configuration_gets_its_own_journal(tmp_path):
    from tribunal.eval.mt.journal import journal_path

    from .helpers import loopback_config

    a = loopback_config("http://127.0.0.1:9/v1", tmp_path)
    b = loopback_config("http://127.0.0.1:9/v1", tmp_path, mmad={"strategy": "deliberation"})
    c = loopback_config("http://127.0.0.1:9/v1", tmp_path, limit=3)  # the slice is not the configuration
    assert journal_path(tmp_path, a.config_signature()) != journal_path(tmp_path, b.config_signature())
    assert a.config_signature() == c.config_signature()

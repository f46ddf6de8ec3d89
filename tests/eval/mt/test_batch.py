"""Batch mode against a loopback server speaking OpenAI's and Anthropic's documented batch endpoints."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.batch_server import batch_server
from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tests.support.waiting import wait_for
from tribunal.eval.mt.batch.lines import BatchLine
from tribunal.eval.mt.batch.providers import split
from tribunal.eval.mt.job import run_evaluation
from tribunal.eval.tracking.mlflow_run import TrackingSettings

from .helpers import KEY_ENV, SECRET, loopback_config, wmt23

FAST = {"enabled": True, "poll_seconds": 0.01, "poll_max_seconds": 0.05}


@pytest.fixture
def api_key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def batch_config(base: str, out: Path, provider: str, model: str = "loopback-judge", **overrides):
    config = loopback_config(base + "/v1", out, batch=FAST | overrides.pop("batch", {}), **overrides)
    return config.model_copy(update={"lm": config.lm.model_copy(update={"model": f"{provider}/{model}"})})


def scores(result) -> dict:
    return {key: (r.status, r.score) for key, r in result.results.items()}


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_batch_mode_gives_the_online_scores_with_one_batch_per_step(tmp_path, api_key, provider):
    with loopback_server(synthetic_judge) as (api_base, online_state):
        online = run_evaluation(loopback_config(api_base, tmp_path / "online", limit=20), TrackingSettings(enabled=False))
    with batch_server(synthetic_judge) as (base, state):
        batched = run_evaluation(batch_config(base, tmp_path / provider, provider, limit=20),
                                 TrackingSettings(enabled=False))
    stats = batched.summary["batch"]
    assert scores(batched) == scores(online) and batched.summary["scored"] == 20
    assert batched.summary["lm_calls"] == online.summary["lm_calls"] == len(online_state.hits)
    assert len(state.created(provider)) == stats["batches"] == stats["steps"]  # one batch per step
    chain = 1 + max(2 * d["rounds"] - 1 for r in online.results.values() for d in r.debates.values()) + 1
    assert stats["batches"] == chain  # as many batches as the longest item's chain of sequential calls
    assert max(state.answered.values()) == 1 and stats["answered"] == sum(state.answered.values())
    assert stats["requests"] <= online.summary["lm_calls"]  # identical requests of different items: one line


def test_spend_is_reported_at_the_batch_price(tmp_path, api_key):
    with batch_server(synthetic_judge) as (base, _):
        result = run_evaluation(batch_config(base, tmp_path / "out", "openai", model="gpt-4o-mini", limit=3),
                                TrackingSettings(enabled=False))
    stats = result.summary["batch"]
    assert stats["input_tokens"] > 0
    assert stats["spend_usd_batch_price"] == pytest.approx(stats["input_tokens"] * 0.075e-6
                                                           + stats["output_tokens"] * 0.3e-6)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_failed_requests_are_retried_in_the_next_batch_then_unscored_with_their_reason(tmp_path, api_key, provider):
    def fault(custom_id: str, attempt: int) -> str | None:
        kind = int(custom_id[:4], 16) % 9
        if kind == 0:
            return "expire"  # in every batch
        if kind == 1 and attempt == 1:
            return "error"  # only in the first
        return None

    with batch_server(synthetic_judge, fault) as (base, state):
        result = run_evaluation(batch_config(base, tmp_path / "out", provider, limit=16),
                                TrackingSettings(enabled=False))
    transient = [key for key, n in state.attempts.items() if int(key[:4], 16) % 9 == 1]
    permanent = [key for key, n in state.attempts.items() if int(key[:4], 16) % 9 == 0]
    assert transient and permanent, "the slice must exercise both faults"
    assert all(state.attempts[key] == 2 and state.answered[key] == 1 for key in transient)
    assert all(state.attempts[key] == 2 and state.answered[key] == 0 for key in permanent)
    unscored = [r for r in result.results.values() if r.status == "unscored"]
    assert unscored and result.summary["scored"] + len(unscored) == 16
    expected = "batch_expired" if provider == "openai" else "expired"
    assert all(r.reason.startswith("batch request failed") and expected in r.reason for r in unscored)
    assert result.summary["batch"]["failed"] == len(transient) + 2 * len(permanent)


def test_lines_are_split_at_the_provider_limits():
    lines = [BatchLine(f"{i:064x}", {"messages": [{"role": "user", "content": "x" * 100}]}) for i in range(10)]
    assert [len(c) for c in split(lines, max_requests=4, max_bytes=10**6)] == [4, 4, 2]
    one = lines[0].size()
    assert [len(c) for c in split(lines, max_requests=100, max_bytes=3 * one)] == [3, 3, 3, 1]


def test_a_step_larger_than_the_limit_goes_out_as_several_batches(tmp_path, api_key):
    with batch_server(synthetic_judge) as (base, state):
        result = run_evaluation(batch_config(base, tmp_path / "out", "openai", limit=6, batch={"max_requests": 5}),
                                TrackingSettings(enabled=False))
    assert result.summary["scored"] == 6
    sizes = [len(b["lines"]) for b in state.created("openai")]
    assert max(sizes) <= 5 and sizes[:5] == [5, 5, 5, 5, 4]  # step 1: 24 stage-1 requests


def command(base: str, out: Path) -> list[str]:
    return [str(Path(sys.executable).parent / "tribunal"), "mt", "evaluate", "--data", str(wmt23()), "--lp", "zh-en",
            "--lm", "openai/loopback-judge", "--api-base", base + "/v1", "--api-key-env", KEY_ENV, "--limit", "8",
            "--demos", "0", "--batch", "--batch-poll", "0.02", "--out", str(out), "--no-track"]


@pytest.mark.slow
def test_a_run_killed_with_a_batch_in_flight_reattaches_and_pays_nothing_twice(tmp_path):
    env = os.environ | {KEY_ENV: SECRET, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "DSPY_CACHEDIR": str(tmp_path / "c")}
    out = tmp_path / "out"
    with batch_server(synthetic_judge) as (base, state):
        state.hold.set()  # batches stay in progress
        process = subprocess.Popen(command(base, out), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        def batch_journaled() -> bool:
            ledgers = list(out.glob("batches-*.jsonl"))
            return bool(state.created("openai") and ledgers
                        and state.created("openai")[0]["info"]["id"] in ledgers[0].read_text())

        wait_for(lambda: batch_journaled() or process.poll() is not None, "the first batch in the ledger")
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
        assert len(state.created("openai")) == 1, "killed while the first batch was in flight"
        first = state.created("openai")[0]
        ledger = next(out.glob("batches-*.jsonl")).read_text()
        assert first["info"]["id"] in ledger  # its id was journaled before the kill
        state.hold.clear()
        done = subprocess.run(command(base, out), env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
    assert "scored 8" in done.stdout
    assert first["checks"] >= 1 and first["done"], "the rerun polled and collected the first batch"
    assert max(state.answered.values()) == 1, "no request answered (billed) twice"
    step1 = {line["custom_id"] for line in first["lines"]}
    later = {line["custom_id"] for b in state.created("openai")[1:] for line in b["lines"]}
    assert not step1 & later, "the rerun did not resubmit the in-flight batch's requests"

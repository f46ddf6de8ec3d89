"""Judging in worker processes: same results as one process, the call bound holds for the whole run."""

from __future__ import annotations

import json

import pytest

from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tribunal.eval.mt.job import run_evaluation
from tribunal.eval.mt.processes import rate_share, slot_shares
from tribunal.eval.tracking.mlflow_run import TrackingSettings

from .helpers import KEY_ENV, SECRET, loopback_config


def test_slot_shares_split_the_bound():
    assert slot_shares(32, 2) == [16, 16]
    assert slot_shares(5, 2) == [3, 2]
    assert slot_shares(2, 4) == [1, 1]
    assert sum(slot_shares(7, 3)) == 7


def test_the_rates_are_split_as_the_slots_are(tmp_path):
    config = loopback_config("http://127.0.0.1:1/v1", tmp_path, concurrency=5, processes=2)
    paced = config.model_copy(update={"lm": config.lm.model_copy(update={"rpm": 600.0, "tpm": 50000.0})})
    shares = [rate_share(paced, share).lm for share in slot_shares(5, 2)]
    assert [(lm.rpm, lm.tpm) for lm in shares] == [(360.0, 30000.0), (240.0, 20000.0)]
    assert rate_share(config, 3) is config  # no rate: nothing to split


def scores(out):
    return {json.loads(line)["key"]: json.loads(line).get("score")
            for line in next(out.glob("journal-*.jsonl")).read_text().splitlines()[1:]}


@pytest.mark.slow
@pytest.mark.parametrize("judging", ["threads", "async"])
def test_two_processes_match_one_and_respect_the_bound(tmp_path, monkeypatch, judging):
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "cache"))
    with loopback_server(synthetic_judge, latency=0.02) as (api_base, state):
        one = run_evaluation(loopback_config(api_base, tmp_path / "one", limit=16, concurrency=4),
                             TrackingSettings(enabled=False))
        state.peak = 0
        two = run_evaluation(loopback_config(api_base, tmp_path / "two", limit=16, concurrency=4, processes=2,
                                             judging=judging), TrackingSettings(enabled=False))
        peak_two = state.peak
    assert two.summary["scored"] == one.summary["scored"] == 16
    assert scores(tmp_path / "two") == scores(tmp_path / "one")  # the parent journaled every worker result
    assert two.summary["lm_calls"] == one.summary["lm_calls"]  # usage comes back from the workers too
    assert 1 <= peak_two <= 4  # 2 workers x 2 slots: the run-wide bound holds
    assert (tmp_path / "two" / "metric-scores" / "zh-en").is_dir()


def test_bad_settings_fail_in_the_parent_before_any_worker(tmp_path, monkeypatch):
    from tribunal.data.errors import DataFormatError

    monkeypatch.setenv(KEY_ENV, SECRET)
    config = loopback_config("http://127.0.0.1:9/v1", tmp_path / "out", limit=2, processes=2)
    config = config.model_copy(update={"demos": 2, "demo_data": tmp_path / "no-ted-here"})
    with pytest.raises(DataFormatError, match="no-ted-here"):
        run_evaluation(config, TrackingSettings(enabled=False))


def test_a_worker_failure_stops_the_run_with_its_reason():
    import queue

    from tribunal.eval.mt.processes import _next

    results = queue.Queue()
    results.put(("failed", "ValueError: boom"))
    with pytest.raises(RuntimeError, match="a judge worker failed: ValueError: boom"):
        _next(results, [])

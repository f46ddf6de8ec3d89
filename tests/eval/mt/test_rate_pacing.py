"""``--rpm`` / ``--tpm`` and the provider's rate-limit headers pace a run's requests, on both judging paths."""

from __future__ import annotations

import json
import time

import pytest

from tests.support.dspy_cache import dspy_cache_off
from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tribunal.eval.mt.job import run_evaluation
from tribunal.eval.tracking.mlflow_run import TrackingSettings

from .helpers import KEY_ENV, SECRET, loopback_config
from tests.support.judging_paths import either_judging  # noqa: F401  (a fixture: both judging paths)

pytestmark = pytest.mark.usefixtures("either_judging")


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def _run(api_base: str, tmp_path, items: int, concurrency: int, **lm_fields):
    config = loopback_config(api_base, tmp_path / "out", limit=items, program="gemba-mqm", concurrency=concurrency)
    config = config.model_copy(update={"lm": config.lm.model_copy(update={"timeout": 5.0, **lm_fields})})
    with dspy_cache_off():
        started = time.monotonic()
        result = run_evaluation(config, TrackingSettings(enabled=False))
    return result, time.monotonic() - started


def test_rpm_spreads_the_requests_at_the_rate_after_a_seconds_worth(tmp_path):
    with loopback_server(synthetic_judge) as (api_base, state):
        result, elapsed = _run(api_base, tmp_path, items=25, concurrency=8, rpm=600)  # 10 a second
    assert result.summary["scored"] == 25 and len(state.hits) == 25
    arrivals = sorted(arrived for arrived, _ in state.intervals)
    # A second's worth (10) at once, then one every 0.1 s: the 25th 1.5 s after the first, not at once.
    assert arrivals[-1] - arrivals[0] >= 1.4, arrivals
    for k in range(10, 25):
        assert arrivals[k] - arrivals[0] >= (k - 9) * 0.1 - 0.05, (k, arrivals)
    assert elapsed < 10


def _prompt_tokens(body) -> int:
    """The prompt tokens the loopback server reports for a request body (its usage: characters / 4)."""
    messages = json.loads(body)["messages"]
    return len("".join(str(m.get("content", "")) for m in messages)) // 4


def test_tpm_paces_by_the_prompts_tokens(tmp_path):
    with loopback_server(synthetic_judge) as (api_base, state):
        _run(api_base, tmp_path, items=2, concurrency=2)  # unpaced: how many tokens a prompt is, about
        tokens = max(map(_prompt_tokens, state.bodies))  # as the server reports them, which the pacer settles by
        state.intervals.clear()
        # Two prompts' worth a second: the bucket holds two, so the fourth waits about a second.
        _run(api_base, tmp_path / "paced", items=4, concurrency=4, tpm=tokens * 2 * 60)
    arrivals = sorted(arrived for arrived, _ in state.intervals)
    assert len(arrivals) == 4 and arrivals[-1] - arrivals[0] >= 0.6, arrivals


def test_a_window_used_up_pauses_the_next_request_until_its_reset(tmp_path):
    def headers(number: int) -> dict[str, str]:
        if number == 0:  # the first answer says no request is left in this window, for 1 s
            return {"x-ratelimit-limit-requests": "10000", "x-ratelimit-remaining-requests": "0",
                    "x-ratelimit-reset-requests": "1s"}
        return {"x-ratelimit-remaining-requests": "9000"}

    with loopback_server(synthetic_judge, headers=headers) as (api_base, state):
        result, _ = _run(api_base, tmp_path, items=3, concurrency=1)
    assert result.summary["scored"] == 3
    (first_in, first_out), (second_in, _), _ = sorted(state.intervals)
    assert second_in - first_out >= 0.9, state.intervals


def test_a_429s_retry_after_pauses_the_other_items_requests(tmp_path):
    def fault(number, _name, _inputs):
        return "429" if number == 0 else None

    def headers(number: int) -> dict[str, str]:
        if number == 1:  # the other item's first answer leaves 0.15 s after the 429: its next request is sent
            time.sleep(0.15)  # after the client read the 429 (not raced against the 429's parsing on a busy loop)
        return {"Retry-After": "1"} if number == 0 else {}

    with loopback_server(synthetic_judge, fault, latency=0.2, headers=headers) as (api_base, state):
        result, _ = _run(api_base, tmp_path, items=4, concurrency=2)
    assert result.summary["scored"] == 4
    intervals = sorted(state.intervals)
    limited_out = intervals[0][1]  # the 429 (the first hit) left then; the second was already out
    later = [arrived for arrived, _ in intervals[2:]]
    assert len(later) == 3 and min(later) - limited_out >= 0.9, intervals

"""The run's second pass, over loopback HTTP: an item whose call drew an unusable answer on every ask is
judged once more at the end of the run (and recovered when the provider answers then), its first attempt's
calls counted; a failure a fresh ask would repeat, or a judge failing too often, gets no second pass.
"""

from __future__ import annotations

import threading
from collections import Counter

import pytest

from tests.support.dspy_cache import private_dspy_cache
from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tribunal.core.item_result import ItemResult
from tribunal.eval.mt.job import run_evaluation
from tribunal.eval.mt.second_pass import needs_second_pass, worth_a_pass
from tribunal.eval.tracking.mlflow_run import TrackingSettings

from .helpers import KEY_ENV, SECRET, loopback_config

OFF = TrackingSettings(enabled=False)


@pytest.fixture
def api_key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def _config(api_base, out, **overrides):
    config = loopback_config(api_base, out, lp="en-de", **overrides)
    lm = config.lm.model_copy(update={"timeout": 30.0, "max_tokens": 512, "num_retries": 0, "cache": True})
    return config.model_copy(update={"lm": lm})


class UnluckyFirstItem:
    """The first item's accuracy agent answers unusably on its first ``bad`` asks (answer and re-asks)."""

    def __init__(self, bad: int, kind: str = "wrong-keys"):
        self.bad, self.kind = bad, kind
        self.asks: Counter = Counter()
        self.first: str | None = None
        self.lock = threading.Lock()

    def __call__(self, number, name, inputs):
        if not name.endswith("AccuracyAssessment"):
            return None
        with self.lock:
            translation = inputs.get("translation", "")
            self.first = self.first or translation
            if translation != self.first:
                return None
            self.asks[translation] += 1
            return self.kind if self.asks[translation] <= self.bad else None


def test_an_unlucky_item_is_recovered_by_the_second_pass_and_both_attempts_are_counted(tmp_path, api_key):
    with private_dspy_cache(tmp_path / "clean-cache"), loopback_server(synthetic_judge) as (api_base, state):
        clean = run_evaluation(_config(api_base, tmp_path / "clean", limit=6, concurrency=1), OFF)
        clean_hits = len(state.hits)
    peer = UnluckyFirstItem(bad=3)  # answer and both re-asks unusable: the first pass loses the item
    with private_dspy_cache(tmp_path / "cache"), loopback_server(synthetic_judge, peer) as (api_base, state):
        result = run_evaluation(_config(api_base, tmp_path / "out", limit=6, concurrency=1), OFF)
        hits = len(state.hits)
    assert result.summary["unscored"] == 0 and result.summary["scored"] == 6
    assert result.summary["second_pass"] == {"items": 1, "recovered": 1, "skipped": None}
    # the pass paid only the failed call's new ask: the item's other answers came from the response cache
    assert hits == clean_hits + 3
    assert result.summary["lm_calls"] - result.summary["lm_calls_cached"] == hits
    assert {k: r.score for k, r in result.results.items()} == {k: r.score for k, r in clean.results.items()}
    journal_lines = result.paths["journal"].read_text().splitlines() if "journal" in result.paths else None
    if journal_lines is not None:
        assert len(journal_lines) == 1 + 6 + 1  # header, six items, the recovered item's second line


def test_a_persistent_failure_is_passed_once_then_stays_unscored(tmp_path, api_key):
    peer = UnluckyFirstItem(bad=100)
    with private_dspy_cache(tmp_path / "cache"), loopback_server(synthetic_judge, peer) as (api_base, state):
        result = run_evaluation(_config(api_base, tmp_path / "out", limit=6, concurrency=1), OFF)
    assert result.summary["unscored"] == 1 and result.summary["second_pass"]["recovered"] == 0
    assert sum(peer.asks.values()) == 6  # 3 asks in the first pass, 3 in the second, no more
    assert result.summary["lm_reasks"] == 4  # both attempts' re-asks are counted


def test_reasks_zero_turns_the_pass_off(tmp_path, api_key):
    peer = UnluckyFirstItem(bad=1)
    with private_dspy_cache(tmp_path / "cache"), loopback_server(synthetic_judge, peer) as (api_base, state):
        config = _config(api_base, tmp_path / "out", limit=3, concurrency=1)
        config = config.model_copy(update={"lm": config.lm.model_copy(update={"reasks": 0})})
        result = run_evaluation(config, OFF)
    assert result.summary["unscored"] == 1 and result.summary["second_pass"]["items"] == 0


def test_only_transient_failures_and_only_bad_luck_get_a_second_pass():
    unscored = lambda transient: ItemResult(key="k", status="unscored", reason="x", transient=transient)  # noqa: E731
    assert needs_second_pass(unscored(True)) and not needs_second_pass(unscored(False))
    assert not needs_second_pass(ItemResult(key="k", status="scored", score=-1.0)) and not needs_second_pass(None)
    assert worth_a_pass(2, 6) and not worth_a_pass(3, 6)  # a small run: two items may be unlucky
    assert worth_a_pass(1, 2) and not worth_a_pass(2, 2) and not worth_a_pass(2, 3)  # not most of them
    assert worth_a_pass(10, 200) and not worth_a_pass(11, 200)  # a large one: 5% of its items

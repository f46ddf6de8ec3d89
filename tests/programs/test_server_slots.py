"""Knowing the server: how many requests it serves at once, found out (or given), and never exceeded."""

from __future__ import annotations

import threading

import pytest

from tests.support.fake_llama_server import Slots, fake_llama
from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tribunal.eval.mt.job import run_evaluation
from tribunal.eval.tracking.mlflow_run import TrackingSettings
from tribunal.programs import server_slots
from tribunal.programs.lm import LMSettings, build_lm
from tribunal.programs.server_slots import PROBE, discover, known, probe, root_url
from tribunal.runner.connections import server_bound, server_lines

from tests.eval.mt.helpers import KEY_ENV, SECRET, loopback_config


@pytest.fixture(autouse=True)
def _fresh(monkeypatch):
    """Nothing found by an earlier test (or a parent process) is taken as known."""
    monkeypatch.delenv(server_slots.KNOWN_ENV, raising=False)
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def test_root_url_drops_the_v1_of_an_api_base():
    assert root_url("http://127.0.0.1:8080/v1") == "http://127.0.0.1:8080"
    assert root_url("http://127.0.0.1:8080/v1/") == "http://127.0.0.1:8080"
    assert root_url("http://host/proxy") == "http://host/proxy"


@pytest.mark.parametrize("expose, source", [("props", "its /props: total_slots"), ("slots", "its /slots"),
                                            ("both", "its /props: total_slots")])
def test_a_llama_server_says_its_slots(expose, source):
    with fake_llama(Slots(slots=3, expose=expose)) as api_base:
        found = discover(api_base, "openai/fake")
    assert (found.slots, found.source) == (3, source)
    assert known(api_base) == found  # looked up once: worker processes read it from the environment


def test_a_server_that_says_nothing_gets_the_runs_concurrency():
    with fake_llama(Slots(slots=1, expose="none")) as api_base:
        found = discover(api_base, "openai/fake")
        assert found.slots is None and "no /props or /slots" in found.source
        assert "pass --server-slots N" in found.describe(api_base)
        server = server_bound(LMSettings(model="openai/fake", api_base=api_base), {}, 8)
    assert server == 8


def test_server_slots_overrides_what_the_server_says():
    with fake_llama(Slots(slots=4, expose="props")) as api_base:
        found = discover(api_base, "openai/fake", setting=2)
    assert (found.slots, found.source) == (2, "--server-slots")


def test_the_probe_tells_a_server_serving_one_at_a_time_from_one_serving_all_together():
    with fake_llama(Slots(slots=1, latency=0.15)) as serial:
        one = probe(serial, "openai/fake", width=4)
    with fake_llama(Slots(slots=None, latency=0.15)) as parallel:
        many = probe(parallel, "openai/fake", width=4)
    with fake_llama(Slots(slots=2, latency=0.15)) as two:
        pair = discover(two, "openai/fake", setting=PROBE)
    assert one.slots == 1 and "1 of 4" in one.source
    assert many.slots is None and "4 of 4" in many.source  # at least 4: none known beyond that
    assert pair.slots == 2


def test_no_more_requests_than_the_slots_reach_the_server_however_many_threads_call():
    shown = Slots(slots=2, expose="props", latency=0.05)
    with fake_llama(shown) as api_base:
        lm = build_lm(LMSettings(model="openai/fake", api_base=api_base, cache=False))
        callers = [threading.Thread(target=lm, kwargs={"prompt": f"say {i}"}) for i in range(8)]
        for caller in callers:
            caller.start()
        for caller in callers:
            caller.join()
    assert shown.chats == 8
    assert shown.peak == 2  # both slots used, never a third request waiting in the server's queue


def test_a_run_sends_no_more_than_the_server_slots_and_says_so(tmp_path):
    with loopback_server(synthetic_judge, latency=0.03) as (api_base, state):
        config = loopback_config(api_base, tmp_path / "out", limit=6, concurrency=8, program="mmad")
        config = config.model_copy(update={"lm": config.lm.model_copy(update={"server_slots": 2})})
        result = run_evaluation(config, TrackingSettings(enabled=False))
        lines = server_lines(config.lm, config.role_lms, config.concurrency)
    assert result.summary["scored"] == 6
    assert state.peak == 2, f"at most 2 requests at once, both used (peak {state.peak})"
    assert server_bound(config.lm, config.role_lms, 8) == 2
    assert lines == [f"{api_base} serves 2 requests at once (--server-slots): calls in flight 2 (--concurrency 8)"]

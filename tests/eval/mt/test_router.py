"""Two loopback endpoints behind LiteLLM's Router: calls split between them; one killed mid-run, the run finishes."""

from __future__ import annotations

import multiprocessing
import time

import pytest

from tribunal.eval.mt.job import run_evaluation
from tribunal.eval.tracking.mlflow_run import TrackingSettings

from .helpers import KEY_ENV, SECRET, loopback_config


def serve(hits, port_pipe, stop) -> None:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
    from tests.support.loopback import loopback_server
    from tests.support.mqm_fakes import synthetic_judge

    with loopback_server(synthetic_judge, latency=0.02) as (api_base, state):
        port_pipe.send(api_base)
        while not stop.wait(0.01):
            hits.value = len(state.hits)


class Endpoint:
    """A loopback server in its own process, so it can be killed like a crashed replica."""

    def __init__(self):
        context = multiprocessing.get_context("spawn")
        self.hits, self.stop = context.Value("i", 0), context.Event()
        receive, send = context.Pipe(duplex=False)
        self.process = context.Process(target=serve, args=(self.hits, send, self.stop), daemon=True)
        self.process.start()
        self.api_base = receive.recv()

    def kill(self) -> None:
        self.process.kill()
        self.process.join(timeout=5)

    def close(self) -> None:
        self.stop.set()
        self.process.join(timeout=5)
        if self.process.is_alive():
            self.kill()


@pytest.mark.slow
@pytest.mark.parametrize("strategy", ["least-busy", "simple-shuffle"])
def test_calls_split_between_endpoints_and_survive_one_killed(tmp_path, monkeypatch, strategy):
    import threading

    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    a, b = Endpoint(), Endpoint()
    killed = {}

    def kill_b_mid_run() -> None:
        deadline = time.monotonic() + 60
        while b.hits.value < 20 and time.monotonic() < deadline:
            time.sleep(0.01)
        killed["at"] = b.hits.value
        b.kill()

    try:
        threading.Thread(target=kill_b_mid_run, daemon=True).start()
        config = loopback_config(a.api_base, tmp_path / "out", limit=16,
                                 router={"endpoints": [a.api_base, b.api_base], "strategy": strategy,
                                         "cooldown_seconds": 60})
        config = config.model_copy(update={"lm": config.lm.model_copy(update={"timeout": 5.0})})
        result = run_evaluation(config, TrackingSettings(enabled=False))
        a_hits = a.hits.value
    finally:
        a.close()
        b.close()
    assert killed["at"] >= 20, "endpoint B answered calls before it was killed"
    assert a_hits > 0 and result.summary["lm_calls"] > killed["at"], "calls were split between the endpoints"
    assert result.summary["scored"] == 16 and result.summary["unscored"] == 0, result.summary["unscored_reasons"]

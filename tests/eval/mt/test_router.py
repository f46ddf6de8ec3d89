"""Two loopback endpoints behind LiteLLM's Router: calls split between them; one killed mid-run, the run finishes."""

from __future__ import annotations

import time

import pytest

from tests.support.loopback_process import Endpoint
from tribunal.eval.mt.job import run_evaluation
from tribunal.eval.tracking.mlflow_run import TrackingSettings

from .helpers import KEY_ENV, SECRET, loopback_config


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

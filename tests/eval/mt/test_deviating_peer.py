"""M-MAD over HTTP against a peer that answers like real chat models (BRIEF §5b).

A third of the answers carry one to three deviations (preamble, fences, Title-Case enums, yes/no,
no completion marker, closing remark, JSON instead of the chat layout ...). The synthetic judge's
decisions depend only on the request, so a reader that understands every answer gets the clean
run's exact scores with the clean run's exact number of calls; a reader that loses answers either
re-asks (more calls) or leaves items unscored.
"""

from __future__ import annotations

import pytest

from tests.support.deviations import deviating_renderer
from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tribunal.eval.mt.job import run_evaluation
from tribunal.eval.tracking.mlflow_run import TrackingSettings

from .helpers import KEY_ENV, SECRET, loopback_config


@pytest.fixture
def api_key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def _run(tmp_path, name, render=None):
    with loopback_server(synthetic_judge, render=render) as (api_base, state):
        config = loopback_config(api_base, tmp_path / name, lp="en-de", limit=16, concurrency=8)
        # server hits are compared with calls: no timeout retry under a loaded machine may add a hit
        config = config.model_copy(update={"lm": config.lm.model_copy(update={"timeout": 30.0})})
        result = run_evaluation(config, TrackingSettings(enabled=False))
    return result, len(state.hits)


def test_deviating_answers_cost_no_extra_call_and_leave_nothing_unscored(tmp_path, api_key):
    clean, clean_hits = _run(tmp_path, "clean")
    renderer = deviating_renderer(rate=0.3, seed=7)
    bent, bent_hits = _run(tmp_path, "bent", renderer)

    assert renderer.answers["deviating"] >= 10 and len(renderer.kinds) >= 8  # the peer really deviated
    assert bent.summary["unscored"] == 0 and clean.summary["unscored"] == 0
    assert bent_hits == clean_hits and bent.summary["lm_calls"] == clean.summary["lm_calls"]
    assert {k: r.score for k, r in bent.results.items()} == {k: r.score for k, r in clean.results.items()}
    assert {k: r.errors for k, r in bent.results.items()} == {k: r.errors for k, r in clean.results.items()}


def test_an_unusable_answer_is_unscored_with_its_raw_text_kept(tmp_path, api_key):
    import json

    def garbage_once(_number, name, inputs):
        return "garbage" if name.endswith("AccuracyAssessment") else None

    with loopback_server(synthetic_judge, garbage_once) as (api_base, _state):
        config = loopback_config(api_base, tmp_path / "garbage", lp="en-de", limit=2)
        result = run_evaluation(config, TrackingSettings(enabled=False))
    assert result.summary["unscored"] == 2 and result.summary["unscored_reasons"] == {"refusal": 2}  # prose: no field at all
    records = [json.loads(line) for line in result.paths["errors"].read_text().splitlines()]
    assert records and all(r["raw_answer"] == "I think this translation is fine, mostly?" for r in records)

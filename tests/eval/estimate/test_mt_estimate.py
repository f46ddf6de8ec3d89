"""``mt evaluate --estimate`` against the real run on the loopback peer, for every MT judge of the registry:
the calls exact where the judge declares them fixed, inside the range otherwise; the prompt tokens equal to
what the peer received (counted with the same tokenizer) where the prompts do not quote answers, inside the
range otherwise; and the rehearsal sends nothing."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from tests.eval.mt.helpers import KEY_ENV, SECRET, loopback_config
from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tribunal.core.judges import JUDGES
from tribunal.eval.estimate.mt_estimate import estimate_evaluation
from tribunal.eval.estimate.tokens import counter_for
from tribunal.eval.mt.job import run_evaluation
from tribunal.eval.tracking.mlflow_run import TrackingSettings

MODEL = "openai/gpt-4o-mini"  # priced, and counted with tiktoken; reached through --api-base (the loopback peer)
OFF = TrackingSettings(enabled=False)


def _config(api_base, out, program):
    config = loopback_config(api_base, out, program=program, limit=4, demos=None if program != "mmad" else 0)
    return config.model_copy(update={"lm": config.lm.model_copy(update={"model": MODEL})})


def _sent_prompt_tokens(bodies: list[bytes]) -> int:
    counter = counter_for(MODEL)
    return sum(counter.count_messages([{"role": m["role"], "content": m["content"]}
                                       for m in json.loads(body)["messages"]]) for body in bodies)


def _within(figure: dict, actual: float) -> bool:
    return figure["low"] <= actual <= figure["high"]


@pytest.mark.parametrize("program", JUDGES.names("mt"))
def test_the_estimate_bounds_the_real_run_and_is_exact_where_the_calls_are_fixed(program, tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    with loopback_server(synthetic_judge) as (api_base, state):
        config = _config(api_base, tmp_path / "out", program)
        estimate = estimate_evaluation(config, OFF).as_json()
        assert state.hits == []  # the rehearsal sent nothing
        result = run_evaluation(config, OFF)
        sent = _sent_prompt_tokens(state.bodies)
    summary = result.summary
    assert summary["scored"] == summary["items"] == estimate["items"] == 4
    assert _within(estimate["calls"], summary["lm_calls"]), (estimate["calls"], summary["lm_calls"])
    actual_roles = Counter()
    for key, calls in summary["lm_calls_by_role"].items():
        actual_roles[key.split("/")[1]] += calls
    for role, calls in actual_roles.items():
        assert _within(estimate["by_role"][role]["calls"], calls), (role, estimate["by_role"][role], calls)
    if JUDGES.get(program).calls.fixed:
        assert estimate["calls"]["low"] == estimate["calls"]["high"] == summary["lm_calls"]
    assert _within(estimate["prompt_tokens"], sent), (estimate["prompt_tokens"], sent)
    if estimate["prompt_tokens"]["low"] == estimate["prompt_tokens"]["high"]:
        assert estimate["prompt_tokens"]["low"] == sent  # the prompts as sent, token for token
    assert estimate["tokens_exact"] and estimate["usd"]["low"] <= estimate["usd"]["high"]
    assert estimate["completion_tokens"]["high"] == 1024 * estimate["calls"]["high"]  # the server default limit

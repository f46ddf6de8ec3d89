"""Sampled ensembles in batch mode and DSPy's rollout ids: K samples are K requests, sent together.

The K samples of an item send the same request body; each sample's rollout id keeps them apart,
in DSPy's response cache (online) and as lines of a batch (batch mode), where they are parked
together: the first batch carries every item's K first calls.
"""

from __future__ import annotations

import pytest

from tests.support.batch_server import batch_server
from tests.support.dspy_cache import private_dspy_cache
from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tribunal.eval.mt.ensemble import SamplingSettings
from tribunal.eval.mt.job import run_evaluation
from tribunal.eval.tracking.mlflow_run import TrackingSettings

from .helpers import KEY_ENV, SECRET, loopback_config
from .segment_data import two_document_mtme
from .test_sampled_ensemble import EXPECTED, ITEMS, PATTERN, ScriptedSamples

FAST = {"enabled": True, "poll_seconds": 0.01, "poll_max_seconds": 0.05}


@pytest.fixture
def api_key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_batch_mode_sends_an_items_k_samples_in_the_same_batch(provider, tmp_path, api_key):
    data = two_document_mtme(tmp_path / "mtme")
    config = loopback_config("", tmp_path / "out", data=data, lp="en-de", limit=None, demos=None, batch=FAST,
                             sampling=SamplingSettings(samples=6, combine="trimmed"), program="gemba-mqm")
    with batch_server(ScriptedSamples(PATTERN)) as (base, state):
        config = config.model_copy(update={"lm": config.lm.model_copy(update={
            "model": f"{provider}/loopback-judge", "api_base": base + "/v1", "temperature": 0.7})})
        result = run_evaluation(config, TrackingSettings(enabled=False))
    [batch] = state.created(provider)  # one call per sample: every item's six samples in the one batch
    assert len(batch["lines"]) == 6 * ITEMS and len({line["custom_id"] for line in batch["lines"]}) == 6 * ITEMS
    assert sum(state.answered.values()) == 6 * ITEMS and max(state.answered.values()) == 1
    assert result.summary["scored"] == ITEMS and result.summary["lm_calls"] == 6 * ITEMS
    assert all(r.score == pytest.approx(EXPECTED["trimmed"]) for r in result.results.values())


def test_a_rollout_id_is_its_own_cache_entry(tmp_path, api_key):
    import dspy

    from tribunal.programs.lm import LMSettings, build_lm
    from tribunal.programs.mqm.roles import RoleLMs, invoke
    from tribunal.programs.mqm.sampling import rollout
    from tribunal.signatures.mqm.gemba import GembaMQM

    predictor = dspy.Predict(GembaMQM)
    inputs = dict(source="Hello.", translation="Hallo.", source_lang="English", target_lang="German")
    with private_dspy_cache(tmp_path / "cache"), loopback_server(synthetic_judge) as (api_base, state):
        lms = RoleLMs(build_lm(LMSettings(model="openai/rollout-judge", api_base=api_base, api_key_env=KEY_ENV,
                                          temperature=0.7, cache=True)))
        for number in (1, 2, 1, None, None):
            if number is None:
                invoke(lms, "gemba", "gemba", predictor, **inputs)
            else:
                with rollout(number):
                    invoke(lms, "gemba", "gemba", predictor, **inputs)
    assert len(state.hits) == 3  # rollouts 1 and 2 and no rollout: three entries; the repeats came from the cache
    assert len(set(state.bodies)) == 1  # the rollout id never reaches the provider

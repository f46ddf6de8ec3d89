"""The journal is keyed by the configuration signature: ``--reasks`` is part of it (it changes which items end
scored), so a rerun with another ``--reasks`` judges again and a rerun with the same one resumes."""

from __future__ import annotations

import pytest

from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tribunal.eval.mt.journal import journal_path
from tribunal.eval.tracking.mlflow_run import TrackingSettings
from tribunal.eval.tracking.run_signatures import MTEvaluateSignature

from .helpers import KEY_ENV, SECRET, loopback_config


def _config(api_base, out, reasks: int):
    config = loopback_config(api_base, out, limit=3, concurrency=2)
    return config.model_copy(update={"lm": config.lm.model_copy(update={"reasks": reasks, "timeout": 30.0})})


def test_the_config_signature_names_reasks(tmp_path):
    two, zero = (_config("http://127.0.0.1:1/v1", tmp_path, r).config_signature() for r in (2, 0))
    assert "|reasks:2|" in two and "|reasks:0|" in zero
    assert journal_path(tmp_path, two) != journal_path(tmp_path, zero)
    assert MTEvaluateSignature.parse(two).reasks == 2


def test_a_rerun_resumes_only_with_the_same_reasks(tmp_path, monkeypatch):
    from tribunal.eval.mt.job import run_evaluation

    monkeypatch.setenv(KEY_ENV, SECRET)
    out = tmp_path / "run"
    with loopback_server(synthetic_judge) as (api_base, state):
        run_evaluation(_config(api_base, out, 2), TrackingSettings(enabled=False))
        first = len(state.hits)
        run_evaluation(_config(api_base, out, 2), TrackingSettings(enabled=False))
        same = len(state.hits)
        run_evaluation(_config(api_base, out, 0), TrackingSettings(enabled=False))
        other = len(state.hits)
    assert first > 0
    assert same == first  # the same --reasks: every item from the journal, no call
    assert other > same  # another --reasks: the old journal is not reused, the items are judged again
    assert len(list(out.glob("journal-*.jsonl"))) == 2


@pytest.mark.parametrize("endpoint", ["http://127.0.0.1:8001/v1"])
def test_the_run_signature_reads_back(tmp_path, endpoint):
    config = _config(endpoint, tmp_path, 1)
    sig = config.signature(data="wmt23/zh-en@abc", degraded="exclude")
    assert MTEvaluateSignature.parse(str(sig)) == sig
    assert str(sig).startswith(config.config_signature().rpartition("|v:")[0] + "|data:wmt23/zh-en@abc|degraded:exclude|v:")

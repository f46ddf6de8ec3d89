"""Every registered MT judge on ``--judging async`` gives what it gives on threads: the same items scored,
the same scores and errors, the same requests to the peer (their order aside), with each setting that changes
its calls (M-MAD's debate strategies and presets, sampled ensembles, ablations, fallbacks, joint-mqm's groups);
and :func:`~tribunal.eval.mt.async_judging.require_async` refuses no registered judge.

Both runs go through :func:`~tribunal.eval.mt.job.run_evaluation` against the loopback peer answering as the
synthetic judge (:func:`tests.support.mqm_fakes.synthetic_judge`), over the small MTME folder (4 sources x 3
systems, so joint-mqm judges groups of 3).
"""

from __future__ import annotations

import hashlib
import json

import pytest

from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tests.support.small_mtme import write_small_mtme
from tribunal.core.judges import JUDGES
from tribunal.eval.mt.ensemble import SamplingSettings
from tribunal.eval.mt.job import run_evaluation
from tribunal.eval.tracking.mlflow_run import TrackingSettings
from tribunal.programs.mqm.ape import APEConfig
from tribunal.programs.mqm.debate_strategies import strategy_names
from tribunal.programs.mqm.esa import ESAConfig
from tribunal.programs.mqm.joint import JointConfig
from tribunal.programs.mqm.mmad import MMADConfig

from .helpers import KEY_ENV, SECRET, loopback_config

OFF = TrackingSettings(enabled=False)


def _garbled_post_edits(name, inputs):
    """The synthetic judge, but a post-edit of every other error is garbage (re-asked, then MQM-APE's fallback)."""
    if name == "PostEdit" and int(hashlib.sha256(str(inputs.get("error")).encode()).hexdigest()[:4], 16) % 2:
        return "no fields here"
    return synthetic_judge(name, inputs)


def _mmad(**settings) -> dict:
    return {"program": "mmad", "mmad": MMADConfig(**settings)}


_STRATEGIES = {name: [_mmad(strategy=name, preset="lean")] + ([] if name == "consultancy-review" else
                                                             [_mmad(strategy=name)]) for name in strategy_names()}
CASES = {
    **{f"mmad-{s}-{c['mmad'].preset}": c for s, cases in _STRATEGIES.items() for c in cases},
    "mmad-lean-without-stage1-and-3": _mmad(preset="lean", ablate=("stage1", "stage3")),
    "mmad-lean-inline-sampled": {**_mmad(preset="lean", consensus_check="inline"),
                                 "sampling": SamplingSettings(samples=2, combine="median")},
    "gemba-mqm": {"program": "gemba-mqm"},
    "gemba-mqm-v2-preset": {"program": "gemba-mqm-v2", "sampling": SamplingSettings(samples=3, combine="gemba-v2")},
    "eaprompt": {"program": "eaprompt"},
    "gemba-esa": {"program": "gemba-esa"},
    "gemba-esa-without-spans": {"program": "gemba-esa", "esa": ESAConfig(ablate=("spans",))},
    "mqm-ape": {"program": "mqm-ape"},
    "mqm-ape-fallbacks": {"program": "mqm-ape", "responder": _garbled_post_edits},
    "mqm-ape-without-verifier": {"program": "mqm-ape", "ape": APEConfig(ablate=("verifier",))},
    "error-free": {"program": "error-free"},
    "joint-mqm": {"program": "joint-mqm"},
    "joint-mqm-two-orders": {"program": "joint-mqm", "joint": JointConfig(orders=2)},
}


def test_the_cases_cover_every_registered_mt_judge_and_debate_strategy():
    assert {c["program"] for c in CASES.values()} == set(JUDGES.names("mt"))
    assert {c["mmad"].strategy for c in CASES.values() if "mmad" in c} == set(strategy_names())


def _run(case: dict, judging: str, data, out) -> tuple[dict, list]:
    settings = {k: v for k, v in case.items() if k != "responder"}
    with loopback_server(case.get("responder", synthetic_judge)) as (api_base, state):
        config = loopback_config(api_base, out, data=data, lp="en-de", limit=None, judging=judging, **settings)
        result = run_evaluation(config, OFF)
    malformed = [r.reason for r in result.results.values() if (r.reason or "").startswith("malformed judgment")]
    assert not malformed, "every judge's prediction validates into an MTJudgment"
    judged = {key: (r.status, r.score, r.errors, r.degraded) for key, r in result.results.items()}
    requests = sorted(json.dumps(json.loads(body)["messages"], sort_keys=True) for body in state.bodies)
    return judged, requests


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_a_judge_on_async_scores_and_asks_as_on_threads(case, tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    data = write_small_mtme(tmp_path / "mtme")
    threads, threads_requests = _run(case, "threads", data, tmp_path / "threads")
    async_, async_requests = _run(case, "async", data, tmp_path / "async")
    assert len(threads) == 12 and any(status == "scored" for status, *_ in threads.values())
    assert async_ == threads
    assert len(async_requests) == len(threads_requests) and async_requests == threads_requests
    if case.get("responder") is _garbled_post_edits:
        assert any(degraded for *_, degraded in threads.values()), "the garbled post-edits took the fallback"

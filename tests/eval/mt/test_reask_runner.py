"""The re-ask rule in the MT runner, over loopback HTTP: items survive one bad answer, and the ones that do not
are unscored with a one-line reason, keep every call in their transcript, and ``--retry-unscored`` asks the
provider again (DSPy's cache on, in a folder of this test's own, never holds the unusable answers).
"""

from __future__ import annotations

import json
import threading
from collections import Counter

import pytest

from tests.support.dspy_cache import private_dspy_cache
from tests.support.loopback import REFUSAL, loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tribunal.eval.mt.job import run_evaluation
from tribunal.eval.tracking.mlflow_run import TrackingSettings

from .helpers import KEY_ENV, SECRET, loopback_config
from tests.support.judging_paths import either_judging  # noqa: F401  (a fixture: both judging paths)

OFF = TrackingSettings(enabled=False)
KINDS = ("refusal", "wrong-keys", "truncated")


@pytest.fixture
def api_key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def _config(api_base, out, cache=False, **overrides):
    config = loopback_config(api_base, out, lp="en-de", **overrides)
    # server hits are compared with calls: no timeout retry under a loaded machine may add a hit
    lm = config.lm.model_copy(update={"timeout": 30.0, "max_tokens": 512, "num_retries": 0, "cache": cache})
    return config.model_copy(update={"lm": lm})


class FirstAnswerBad:
    """The first answer to each stage-1 accuracy request is unusable (its kind cycles); re-asks are answered."""

    def __init__(self):
        self.seen: Counter = Counter()
        self.kinds: Counter = Counter()
        self.lock = threading.Lock()

    def __call__(self, number, name, inputs):
        if not name.endswith("AccuracyAssessment"):
            return None
        key = json.dumps(inputs, sort_keys=True)
        with self.lock:
            self.seen[key] += 1
            if self.seen[key] > 1:
                return None
            kind = KINDS[len(self.seen) % len(KINDS)]
            self.kinds[kind] += 1
            return kind


@pytest.mark.usefixtures("either_judging")
def test_one_unusable_answer_costs_one_reask_not_the_item(tmp_path, api_key):
    with loopback_server(synthetic_judge) as (api_base, state):
        clean = run_evaluation(_config(api_base, tmp_path / "clean", limit=9), OFF)
        clean_hits = len(state.hits)
    peer = FirstAnswerBad()
    with loopback_server(synthetic_judge, peer) as (api_base, state):
        bent = run_evaluation(_config(api_base, tmp_path / "bent", limit=9), OFF)
        hits = len(state.hits)
        assert all(json.loads(body).get("n", 1) == 1 for body in state.bodies)  # one answer per request, always
    items = bent.summary["items"]
    assert clean.summary["unscored"] == 0 and bent.summary["unscored"] == 0
    assert peer.kinds == {kind: items // 3 for kind in KINDS}  # every kind, once per item in all
    assert hits == clean_hits + items  # one re-ask per item, nothing else
    assert bent.summary["lm_calls"] == clean.summary["lm_calls"] + items and bent.summary["lm_reasks"] == items
    assert bent.summary["lm_reasks_by_kind"] == {"refusal": 3, "truncated": 3, "unparseable": 3}
    assert {k: r.score for k, r in bent.results.items()} == {k: r.score for k, r in clean.results.items()}


def _always_bad(kinds_by_item):
    """The stage-1 accuracy agent of item i always answers unusably, of kind ``kinds_by_item[i]``."""
    keys: dict[str, str] = {}
    lock = threading.Lock()

    def fault(number, name, inputs):
        if not name.endswith("AccuracyAssessment"):
            return None
        with lock:
            translation = inputs.get("translation", "")
            if translation not in keys and len(keys) < len(kinds_by_item):
                keys[translation] = kinds_by_item[len(keys)]
            return keys.get(translation)

    return fault


@pytest.mark.usefixtures("either_judging")
def test_each_unscored_kind_has_a_one_line_reason_and_a_transcript_of_every_call(tmp_path, api_key):
    with loopback_server(synthetic_judge, _always_bad(KINDS)) as (api_base, state):
        result = run_evaluation(_config(api_base, tmp_path / "out", limit=6, concurrency=1), OFF)
    reasons = {r.reason.split(":")[0] for r in result.results.values() if r.status == "unscored"}
    assert result.summary["unscored"] == 3
    assert reasons == {"refusal", "unparseable answer", "truncated at max_tokens=2048 (raise it with --max-tokens)"}  # 4 x 512
    unscored = [r for r in result.results.values() if r.status == "unscored"]
    assert all("\n" not in r.reason and "http" not in r.reason and len(r.reason) < 400 for r in unscored)
    assert any(r.raw == REFUSAL for r in unscored)
    transcripts = [json.loads(line) for line in result.paths["transcripts"].read_text().splitlines()]
    for record in (t for t in transcripts if t["status"] == "unscored"):
        calls = record["transcript"]
        assert calls, "an unscored item keeps its calls"
        failed = [c for c in calls if c.get("error")]
        assert failed and all(c.get("raw_answer") for c in failed)
        assert any(c.get("reask") for c in calls)  # the re-asks are in it, marked
    summary = result.summary
    assert summary["lm_reasks_by_kind"] == {"refusal": 2, "truncated": 2, "unparseable": 2}  # one budget for every kind


@pytest.mark.usefixtures("either_judging")
def test_invalid_values_are_reasked_and_then_unscored_in_words(tmp_path, api_key):
    def responder(name, inputs):
        answer = synthetic_judge(name, inputs)
        if name.endswith("AccuracyAssessment"):
            answer = {"rationale": "x", "errors": [{"span": "x", "subcategory": "mistranslation", "severity": "awful"}]}
        return answer

    with loopback_server(responder) as (api_base, state):
        result = run_evaluation(_config(api_base, tmp_path / "out", limit=2), OFF)
    [reason] = {r.reason for r in result.results.values()}
    assert reason.startswith("invalid answer: errors[0].severity: Input should be 'minor' or 'major' (got 'awful')")
    assert "asked 3 times" in reason and result.summary["lm_reasks_by_kind"] == {"invalid": 4}


@pytest.mark.usefixtures("either_judging")
def test_retry_unscored_reaches_the_provider_again(tmp_path, api_key):
    refuse = _always_bad(("refusal",))  # the first item's accuracy agent refuses, while ``bad`` is on
    bad = {"on": True}

    def fault(number, name, inputs):
        return refuse(number, name, inputs) if bad["on"] else None

    with private_dspy_cache(tmp_path / "cache"), loopback_server(synthetic_judge, fault) as (api_base, state):
        config = _config(api_base, tmp_path / "out", limit=3, concurrency=1, cache=True)
        one = run_evaluation(config, OFF)
        assert one.summary["unscored"] == 1 and one.summary["unscored_permanent"] == 1
        before = len(state.hits)
        again = run_evaluation(config, OFF)  # the same command: a permanent failure is not paid again
        assert len(state.hits) == before and again.summary["unscored"] == 1
        bad["on"] = False  # the provider answers now
        retried = run_evaluation(config.model_copy(update={"retry_unscored": True}), OFF)
        asked = [name for name, _, _ in state.hits[before:]]
    assert retried.summary["unscored"] == 0 and retried.summary["scored"] == 3
    # the refused request reached the server again (it was never cached); the item's usable answers came
    # from the cache, and no other item was judged again
    assert asked.count(next(n for n in asked if n.endswith("AccuracyAssessment"))) == 1
    [key] = [k for k, r in one.results.items() if r.status == "unscored"]
    usage = retried.results[key].usage.counts()
    total = lambda field: sum(v for k, v in usage.get(field, {}).items() if "/" not in k)  # noqa: E731
    assert total("cached") == 3  # the other three stage-1 agents' answers, kept from the first run
    assert total("calls") - total("cached") == len(asked)


def test_mlflow_logs_the_reasks(tmp_path, api_key, mlflow_store):
    from tribunal.eval.tracking.mlflow_run import mlflow_client

    settings = TrackingSettings(uri=mlflow_store, experiment="reasks")
    with loopback_server(synthetic_judge, FirstAnswerBad()) as (api_base, state):
        result = run_evaluation(_config(api_base, tmp_path / "out", limit=3), settings)
    run = mlflow_client(settings).get_run(result.run_id)
    metrics = run.data.metrics
    assert metrics["lm_reasks"] == 3 and metrics["lm_calls"] == len(state.hits)
    assert {metrics[f"reasks.{kind}"] for kind in ("refusal", "truncated", "unparseable")} == {1.0}
    assert run.data.params["reasks"] == "2"

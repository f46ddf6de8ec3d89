"""``mt evaluate --samples K --combine RULE`` over HTTP: K server hits per item, combined as documented.

The loopback judge answers GEMBA-MQM's prompt with a scripted error list per hit of an item (the
k-th request for an item gets the k-th list, whichever sample sent it), so every item's K scores
are known: -1, -2, -2, -3, -25, -1 (one minor error, two, two, three, one critical, one). Worked
by hand (``tribunal.eval.mt.combine``): mean -34/6 = -5.6667; median -2; trimmed: -25 lies 19.33
from the mean, beyond 2 x 8.673, and is dropped; the reciprocal-rank weighted average of
-1, -1, -2, -2, -3 is -3.2667 / 2.2833 = -1.4307.
"""

from __future__ import annotations

import csv
import json
import threading
from collections import Counter

import pytest

from tests.support.cli import run_cli
from tests.support.dspy_cache import private_dspy_cache
from tests.support.loopback import loopback_server

from .segment_data import two_document_mtme

KEY_ENV = "TRIBUNAL_SAMPLES_TEST_KEY"
PATTERN = [["minor"], ["minor", "minor"], ["minor", "minor"], ["minor"] * 3, ["critical"], ["minor"]]
EXPECTED = {"mean": -34 / 6, "median": -2.0, "trimmed": -3.2666666666666666 / 2.283333333333333}
ITEMS = 11  # 12 cells; A and B translate segment 1 alike


class ScriptedSamples:
    """GEMBA-MQM answers: the k-th request for an item gets ``pattern[k % len]`` (``"garbage"``: unreadable)."""

    def __init__(self, pattern):
        self.pattern, self.seen, self.lock = pattern, Counter(), threading.Lock()

    def __call__(self, name, inputs):
        with self.lock:
            hit = self.seen[(inputs["source"], inputs["translation"])]
            self.seen[(inputs["source"], inputs["translation"])] += 1
        severities = self.pattern[hit % len(self.pattern)]
        if severities == "garbage":
            return "I would rather not say."
        word = inputs["translation"].split()[0]
        return {"errors": [{"span": word, "category": "accuracy", "severity": s} for s in severities]}


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-samples-test")
    monkeypatch.chdir(tmp_path)
    return two_document_mtme(tmp_path / "mtme")


def evaluate(capsys, api_base, data, out, *extra):
    return run_cli(capsys, "mt", "evaluate", "--data", data, "--lp", "en-de", "--lm", "openai/sampled-judge",
                   "--api-base", api_base, "--api-key-env", KEY_ENV, "--program", "gemba-mqm", "--out", out, *extra)


def lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("rule", ["mean", "median", "trimmed"])
def test_k_samples_are_k_hits_with_the_cache_on_and_combine_as_documented(rule, data, tmp_path, capsys):
    out = tmp_path / "out"
    args = ("--samples", "6", "--temperature", "0.7", "--combine", rule, "--no-track")
    with private_dspy_cache(tmp_path / "cache"), loopback_server(ScriptedSamples(PATTERN)) as (api_base, state):
        first = evaluate(capsys, api_base, data, out, *args)
        hits = len(state.hits)
        again = evaluate(capsys, api_base, data, out, *args)
    assert first.status == 0, first.err
    assert hits == 6 * ITEMS  # the cache is on, yet every sample reached the server
    assert len(state.hits) == hits and f"resumed from journal {ITEMS}" in again.out  # the rerun paid nothing
    assert f"samples: K=6 per item, combined by {rule}" in first.out and "(x6 a single judgment)" in first.out
    assert f"LM calls: {6 * ITEMS} (gemba {6 * ITEMS})" in first.out
    assert "note:" not in first.err  # temperature > 0: no warning

    cells = lines(out / "errors.jsonl")
    assert len(cells) == 12 and all(c["score"] == pytest.approx(EXPECTED[rule]) for c in cells)
    for cell in cells:
        samples = cell["samples"]
        assert sorted(samples["scores"]) == [-25.0, -3.0, -2.0, -2.0, -1.0, -1.0]
        assert samples["std"] == pytest.approx(8.67307455417179) and (samples["min"], samples["max"]) == (-25, -1)
        chosen = samples["scores"][samples["chosen"] - 1]
        assert len(cell["errors"]) == -chosen  # the spans of the sample nearest the combined score
        assert len(samples["kept"]) == (5 if rule == "trimmed" else 6)
    transcript = lines(out / "transcripts.jsonl")[0]["transcript"]
    assert [t.get("rollout_id") for t in transcript if t["stage"] == "sample"] == [1, 2, 3, 4, 5, 6]
    assert transcript[-1]["stage"] == "combine" and transcript[-1]["rule"] == rule
    with open(out / "samples.tsv", newline="") as handle:
        table = list(csv.DictReader(handle, delimiter="\t"))
    assert len(table) == ITEMS and float(table[0]["score"]) == pytest.approx(EXPECTED[rule])
    assert [h for h in table[0] if h.startswith("sample_")] == [f"sample_{k}" for k in range(1, 7)]


def test_unusable_samples_are_dropped_and_too_few_leave_the_item_unscored(data, tmp_path, capsys):
    with loopback_server(ScriptedSamples([["minor"], "garbage", ["major"]])) as (api_base, _):
        dropped = evaluate(capsys, api_base, data, tmp_path / "one", "--samples", "3", "--temperature", "1",
                           "--reasks", "0", "--no-cache", "--no-track")  # no re-ask: the bad sample stays bad
    assert dropped.status == 0, dropped.err
    assert f"{ITEMS} unusable samples dropped in {ITEMS} items (each scored from the rest)" in dropped.out
    cells = lines(tmp_path / "one" / "errors.jsonl")
    assert all(c["score"] == -3.0 and c["samples"]["dropped"] and c["samples"]["scores"].count(None) == 1
               for c in cells)  # the mean of the two usable samples, -1 and -5

    with loopback_server(ScriptedSamples(["garbage", "garbage", ["major"]])) as (api_base, _):
        few = evaluate(capsys, api_base, data, tmp_path / "two", "--samples", "3", "--temperature", "1",
                       "--reasks", "0", "--no-cache", "--no-track")
    assert few.status == 3
    assert f"unscored: {ITEMS} x too few usable samples (refusal)" in few.out  # prose with no field
    assert f"{ITEMS} unscored with an unusable answer" in few.out  # permanent: --retry-unscored to pay again
    reasons = {c["reason"] for c in lines(tmp_path / "two" / "errors.jsonl")}
    assert all(r.startswith("too few usable samples (refusal): 1 of 3 usable, 2 needed") for r in reasons)


def test_samples_at_temperature_zero_get_a_note(data, tmp_path, capsys):
    with loopback_server(ScriptedSamples(PATTERN)) as (api_base, state):
        outcome = evaluate(capsys, api_base, data, tmp_path / "out", "--samples", "2", "--limit", "1", "--no-cache",
                           "--no-track")
    assert outcome.status == 0 and len(state.hits) == 2
    assert "note: --samples: the 2 repeats are fresh calls" in outcome.err and "--temperature 0" in outcome.err


def test_samples_in_mlflow_params_metrics_artifacts_and_traces(data, tmp_path, capsys, mlflow_store):
    from mlflow.tracking import MlflowClient

    with loopback_server(ScriptedSamples(PATTERN)) as (api_base, _):
        outcome = evaluate(capsys, api_base, data, tmp_path / "out", "--samples", "6", "--temperature", "0.7",
                           "--combine", "trimmed", "--reference", "refA", "--limit", "2", "--no-cache",
                           "--tracking-uri", mlflow_store, "--experiment", "samples")
    assert outcome.status == 0, outcome.err
    client = MlflowClient(tracking_uri=mlflow_store)
    experiment = client.get_experiment_by_name("samples")
    [run] = client.search_runs([experiment.experiment_id])
    params, metrics = run.data.params, run.data.metrics
    assert (params["samples"], params["combine"], params["reference"], params["temperature"]) == ("6", "trimmed",
                                                                                                  "refA", "0.7")
    assert params["metric_name"] == "GEMBA-MQM-ref-k6-trimmed"
    assert metrics["samples.k"] == 6 and metrics["samples.mean_std"] == pytest.approx(8.67307455417179)
    assert metrics["lm_calls"] == 12
    artifacts = {a.path for a in client.list_artifacts(run.info.run_id, "outputs")}
    assert "outputs/samples.tsv" in artifacts
    [trace, *_] = client.search_traces(locations=[experiment.experiment_id])
    names = [span.name for span in trace.data.spans]
    assert sorted(n for n in names if n.startswith("sample ")) == [f"sample {k}" for k in range(1, 7)]
    root = next(span for span in trace.data.spans if span.parent_id is None)
    assert root.attributes["tribunal.samples.rule"] == "trimmed" and root.inputs["reference"]

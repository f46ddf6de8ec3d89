"""The tuning loop inside MLflow, over a SQLite store and over ``mlflow server``:

``mt evaluate`` judges 12 items (a trace each, with the ``human_mqm`` expectation), people change,
add, remove and spoil labels with ``mlflow.log_expectation`` / ``log_feedback`` / an override of the
judge's feedback; ``mlflow:EXPERIMENT`` slices read them back (counts, values, skip reasons, a hash
that follows the labels); ``optimize`` tunes on them and registers an MLflow model that
``mlflow.pyfunc`` loads and that sends the same requests and gives the same judgments as
``mt evaluate --program EXPORT`` on the same items through the same loopback peer. On PostgreSQL
(``mlflow server --backend-store-uri postgresql://...``) two workers judge at once first.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import mlflow
import pandas as pd
import pytest
from mlflow.entities import AssessmentSource
from mlflow.tracking import MlflowClient
from typer.testing import CliRunner

from tests.eval.mt.helpers import KEY_ENV, SECRET, wmt23
from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tests.support.small_mtme import GOLD, OUTPUTS, SOURCES, write_small_mtme
from tribunal.cli import app
from tribunal.optimizers import trace_labels as tl
from tribunal.optimizers.training_data import load_training_data

ALICE, BOB = AssessmentSource("HUMAN", "alice"), AssessmentSource("HUMAN", "bob")
SCRIPT = AssessmentSource("CODE", "a script")


@pytest.fixture
def env(monkeypatch, tmp_path):
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TRIBUNAL_DATA", str(wmt23().parent))  # GEMBA-MQM's fixed TED demos


def cli(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, (result.output, result.exception)
    return result.output


def evaluate(data, api_base, out, *extra: str) -> str:
    return cli("mt", "evaluate", "--data", str(data), "--lp", "en-de", "--lm", "openai/judge", "--api-base", api_base,
               "--api-key-env", KEY_ENV, "--concurrency", "2", "--out", str(out), *extra)


def cell(system: str, segment: int) -> tuple[str, str]:
    return SOURCES[segment], OUTPUTS[system][segment]


def traces_by_item(uri: str, experiment: str) -> dict[tuple[str, str], object]:
    mlflow.set_tracking_uri(uri)
    client = MlflowClient(uri)
    experiment_id = client.get_experiment_by_name(experiment).experiment_id
    found = client.search_traces(locations=[experiment_id], max_results=100)
    return {(t.data.spans[0].inputs["source"], t.data.spans[0].inputs["translation"]): t for t in found}


def label(traces, uri: str) -> dict[tuple[str, str], float | None]:
    """People at work in the UI (through the same API); returns the expected label of every item."""
    mlflow.set_tracking_uri(uri)
    expected = {cell(s, i): float(GOLD[s][i]) for s in OUTPUTS for i in range(len(SOURCES))}

    def trace_id(system, segment):
        return traces[cell(system, segment)].info.trace_id

    mlflow.log_expectation(trace_id=trace_id("C", 0), name="human_mqm", value=-10.0, source=ALICE)  # changed
    expected[cell("C", 0)] = -10.0
    mlflow.log_feedback(trace_id=trace_id("B", 1), name="human_mqm", value=-3, source=BOB)  # changed, as feedback
    expected[cell("B", 1)] = -3.0
    judge = next(a for a in traces[cell("C", 1)].info.assessments if a.name == "GEMBA-MQM_mqm")
    mlflow.override_feedback(trace_id=trace_id("C", 1), assessment_id=judge.assessment_id, value=-7.0,
                             source=ALICE)  # the judge's score corrected
    expected[cell("C", 1)] = -7.0
    mlflow.log_feedback(trace_id=trace_id("B", 0), name="human_mqm", value=-20.0, source=SCRIPT)  # not a person
    gold = next(a for a in traces[cell("A", 1)].info.assessments if a.name == "human_mqm")
    mlflow.delete_assessment(trace_id=trace_id("A", 1), assessment_id=gold.assessment_id)  # missing
    expected[cell("A", 1)] = None
    mlflow.log_feedback(trace_id=trace_id("A", 2), name="human_mqm", value="about -3", source=BOB)  # unusable
    expected[cell("A", 2)] = None
    for system, segment in [("A", 0), ("B", 0), ("B", 2), ("C", 0), ("C", 2), ("C", 3), ("A", 3)]:
        word = max(OUTPUTS[system][segment].split(), key=len)
        spans = [{"category": "Accuracy/Mistranslation", "severity": "minor", "span": word}]
        mlflow.log_expectation(trace_id=trace_id(system, segment), name="human_errors", value=spans, source=ALICE)
    return expected


def items(data) -> dict[tuple[str, str], object]:
    return {(e.source, e.translation): e for e in data.examples}


def tune_on_labels_and_check_the_model(store_uri, experiment, data, api_base, state, tmp_path) -> None:
    """The loop after ``mt evaluate`` (gemba-mqm) judged ``data`` into ``experiment``: label, read, tune, load, compare."""
    traces = traces_by_item(store_uri, experiment)
    assert len(traces) == 12
    expected = label(traces, store_uri)

    spec = f"mlflow:{experiment}"
    whole = load_training_data(spec, tracking_uri=store_uri)
    assert whole.kind == "mt" and len(whole.examples) == 10
    assert whole.skipped == {tl.NO_LABEL: 1, tl.NOT_A_SCORE: 1}
    assert {k: e.gold_score for k, e in items(whole).items()} == {k: v for k, v in expected.items() if v is not None}
    marked, text = items(whole)[cell("C", 0)], OUTPUTS["C"][0]
    start = text.index(max(text.split(), key=len))  # the span the person marked, found in the translation
    assert marked.gold_errors == [{"start": start, "end": start + 9, "severity": "minor",
                                   "category": "Accuracy/Mistranslation", "is_source_error": False}]
    assert items(whole)[cell("B", 1)].gold_errors is None  # nobody marked spans: score only
    assert marked.trace_ids == [traces[cell("C", 0)].info.trace_id]
    assert all(e.source_lang == "English" and e.target_lang == "German" for e in whole.examples)

    train, dev = f"{spec}:0-6", f"{spec}:6-"
    before = load_training_data(dev, "--dev", tracking_uri=store_uri).hash
    assert load_training_data(dev, "--dev", tracking_uri=store_uri).hash == before  # stable while nothing changes
    last = load_training_data(dev, "--dev", tracking_uri=store_uri).examples[-1]
    mlflow.log_feedback(trace_id=last.trace_ids[0], name="human_mqm", value=last.gold_score - 1, source=BOB)
    assert load_training_data(dev, "--dev", tracking_uri=store_uri).hash != before  # a new label, a new signature

    printed = cli("optimize", "--program", "gemba-mqm", "--optimizer", "labeled", "--budget", "2", "--train", train,
                  "--dev", dev, "--lm", "openai/judge", "--api-base", api_base, "--api-key-env", KEY_ENV,
                  "--threads", "1", "--no-cache", "--out", str(tmp_path / "tuned.json"), "--tracking-uri", store_uri,
                  "--experiment", f"{experiment}-tune")
    assert "train: 2 trace(s) skipped: 1 no human label, 1 human MQM label is not a number <= 0" in printed
    model_uri = re.search(r"^model: (models:/tribunal-gemba-mqm/\d+) ", printed, re.M).group(1)
    run_id = re.search(r"^run: (\w{32})", printed, re.M).group(1)
    document = json.loads((tmp_path / "tuned.json").read_text())
    assert document["state"]["annotate"]["demos"], "demos from the labelled spans"
    version = MlflowClient(store_uri).get_model_version("tribunal-gemba-mqm", model_uri.rsplit("/", 1)[1])
    assert version.tags["sha256"] == document["sha256"] and version.run_id == run_id

    mlflow.set_tracking_uri(store_uri)
    model = mlflow.pyfunc.load_model(model_uri)
    frame = pd.DataFrame([{"source": s, "translation": t, "source_lang": "en", "target_lang": "de"}
                          for s, t in sorted(traces)])
    state.bodies.clear()
    predicted = model.predict(frame, params={"lm": "openai/judge", "api_base": api_base, "api_key_env": KEY_ENV,
                                             "cache": False, "concurrency": 2})
    sent_by_model = sorted(state.bodies)
    state.bodies.clear()
    evaluate(data, api_base, tmp_path / "replayed", "--program", str(tmp_path / "tuned.json"), "--no-cache",
             "--no-track")
    sent_by_evaluate = sorted(state.bodies)

    assert sent_by_model == sent_by_evaluate and len(sent_by_model) == 12  # the same requests, byte for byte
    judged = {(SOURCES[r["segment"]], OUTPUTS[r["system"]][r["segment"]]): r
              for r in map(json.loads, (tmp_path / "replayed" / "errors.jsonl").read_text().splitlines())}
    assert list(predicted.columns) == ["score", "errors", "unscored_reason"]
    for (source, translation), row in zip(sorted(traces), predicted.itertuples()):
        assert row.score == judged[(source, translation)]["score"]
        assert json.loads(row.errors) == judged[(source, translation)]["errors"]
        assert row.unscored_reason is None


def test_labelled_traces_become_training_data_then_a_model_on_sqlite(tmp_path, empty_sqlite_store, env):
    import shutil

    shutil.copyfile(empty_sqlite_store, tmp_path / "mlflow.db")
    store_uri, experiment = f"sqlite:///{tmp_path}/mlflow.db", "labels"
    data = write_small_mtme(tmp_path / "labelset")
    with loopback_server(synthetic_judge) as (api_base, state):
        evaluate(data, api_base, tmp_path / "judged", "--program", "gemba-mqm", "--tracking-uri", store_uri,
                 "--experiment", experiment)
        tune_on_labels_and_check_the_model(store_uri, experiment, data, api_base, state, tmp_path)


def worker(data, api_base, server, program, experiment, out, env) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "tribunal", "mt", "evaluate", "--data", str(data), "--lp", "en-de", "--lm",
         "openai/judge", "--api-base", api_base, "--api-key-env", KEY_ENV, "--program", program, "--concurrency", "2",
         "--out", str(out), "--tracking-uri", server, "--experiment", experiment],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def test_the_team_server_on_postgresql_holds_the_whole_loop(postgres_server_uri, env, tmp_path):
    """Two workers judge and log at once; traces, assessments, datasets, prompts, then the labels-to-model loop."""
    data = write_small_mtme(tmp_path / "labelset")
    experiments = {"gemba-mqm": "team-gemba", "eaprompt": "team-eaprompt"}
    with loopback_server(synthetic_judge) as (api_base, state):
        workers = [worker(data, api_base, postgres_server_uri, program, experiment, tmp_path / program, os.environ)
                   for program, experiment in experiments.items()]
        outputs = [w.communicate(timeout=900) for w in workers]
        assert [w.returncode for w in workers] == [0, 0], [err[-2000:] for _, err in outputs]
        client = MlflowClient(postgres_server_uri)
        mlflow.set_tracking_uri(postgres_server_uri)  # trace spans are downloaded through the module-level URI
        for (program, experiment), (out, _) in zip(experiments.items(), outputs):
            run = client.get_run(re.search(r"MLflow run (\w{32})", out).group(1))
            assert run.info.status == "FINISHED"
            assert [d.dataset.name for d in run.inputs.dataset_inputs] == ["labelset/en-de"]
            traces = client.search_traces(locations=[run.info.experiment_id], run_id=run.info.run_id, max_results=50)
            assert len(traces) == 12
            assert all({a.name for a in t.info.assessments} == {"human_mqm", f"{run.data.params['metric_name']}_mqm"}
                       for t in traces)
            assert client.search_datasets(experiment_ids=[run.info.experiment_id])  # the rated cells, for genai
        prompts = {p.name for p in client.search_prompts(filter_string="name LIKE 'tribunal.%'")}
        assert {"tribunal.GembaMQM", "tribunal.ErrorAnalysis"} <= prompts
        tune_on_labels_and_check_the_model(postgres_server_uri, experiments["gemba-mqm"], data, api_base, state,
                                           tmp_path)

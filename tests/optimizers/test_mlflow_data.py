"""``mlflow:EXPERIMENT[:A-B][?FILTER]`` slices: items, merging, ranges, filters, refusals (no LM needed)."""

from __future__ import annotations

import mlflow
import pytest
from mlflow.entities import AssessmentSource

from tribunal.errors import UserError
from tribunal.optimizers import trace_labels as tl
from tribunal.optimizers.mlflow_data import OTHER_KIND, TEST_DATA
from tribunal.optimizers.training_data import check_disjoint, load_training_data

PERSON = AssessmentSource("HUMAN", "alice")


def item(n: int) -> dict:
    return {"source": f"Source sentence {n}.", "translation": f"Übersetzung {n}.", "source_lang": "English",
            "target_lang": "German"}


def trace(inputs: dict, tags: dict | None = None) -> str:
    with mlflow.start_span("item") as span:
        span.set_inputs(inputs)
        if tags:
            mlflow.update_current_trace(tags=tags)
    mlflow.flush_trace_async_logging()
    return span.trace_id


@pytest.fixture
def store(mlflow_uri, tmp_path):
    mlflow.set_tracking_uri(mlflow_uri)
    mlflow.create_experiment("labels", artifact_location=(tmp_path / "artifacts").as_uri())  # not ./mlruns
    mlflow.set_experiment("labels")
    return mlflow_uri


def test_items_merge_their_traces_and_take_the_latest_label(store):
    first, second, third = trace(item(1)), trace(item(1)), trace(item(2))
    mlflow.log_expectation(trace_id=first, name="human_mqm", value=-1.0, source=PERSON)
    mlflow.log_feedback(trace_id=second, name="human_mqm", value=-4.0, source=PERSON)  # later: wins for item 1
    mlflow.log_expectation(trace_id=third, name="human_mqm", value=0, source=PERSON)
    data = load_training_data("mlflow:labels", tracking_uri=store)
    assert [(e.translation, e.gold_score, e.trace_ids) for e in data.examples] == [
        ("Übersetzung 1.", -4.0, [first, second]), ("Übersetzung 2.", 0.0, [third])]
    assert load_training_data("mlflow:labels:1-", tracking_uri=store).examples[0].trace_ids == [third]
    with pytest.raises(UserError, match="share 1 of 1 dev items"):
        check_disjoint(data, load_training_data("mlflow:labels:1-2", "--dev", tracking_uri=store))


def test_a_filter_selects_traces_and_a_bad_one_is_one_line(store):
    kept, other = trace(item(1), {"batch": "a"}), trace(item(2), {"batch": "b"})
    for trace_id in (kept, other):
        mlflow.log_expectation(trace_id=trace_id, name="human_mqm", value=-2.0, source=PERSON)
    data = load_training_data("mlflow:labels?tags.batch = 'a'", tracking_uri=store)
    assert [e.trace_ids for e in data.examples] == [[kept]] and data.label.startswith("mlflow/labels@")
    with pytest.raises(UserError, match="mlflow: cannot search the traces of"):
        load_training_data("mlflow:labels?tags.batch === 'a'", tracking_uri=store)


def test_nothing_usable_is_an_error_that_lists_the_reasons(store):
    trace(item(1))
    mlflow.log_feedback(trace_id=trace(item(2)), name="human_mqm", value="bad", source=PERSON)
    with pytest.raises(UserError, match=r"no labelled items \(skipped 2: 1 no human label, 1 human MQM label is not"):
        load_training_data("mlflow:labels", tracking_uri=store)
    with pytest.raises(UserError, match="no experiment 'nope'"):
        load_training_data("mlflow:nope", tracking_uri=store)


def test_traces_of_a_run_that_judged_wmt23_are_test_data(store):
    with mlflow.start_run() as run:
        mlflow.set_tag("tribunal.signature", "prog:gemba-mqm|data:wmt23/zh-en@abc|v:0.1.0")
        judged = trace(item(1))
    mlflow.log_expectation(trace_id=judged, name="human_mqm", value=-1.0, source=PERSON)
    mlflow.log_expectation(trace_id=trace(item(2)), name="human_mqm", value=-1.0, source=PERSON)
    data = load_training_data("mlflow:labels", tracking_uri=store)
    assert len(data.examples) == 1 and data.skipped == {TEST_DATA: 1}
    assert mlflow.get_trace(judged).info.request_metadata["mlflow.sourceRun"] == run.info.run_id


def test_pairs_make_an_equivalence_slice_and_other_kinds_are_skipped(store):
    pairs = [trace({"hypothesis_a": f"A{n} causes B.", "hypothesis_b": f"B follows A{n}.", "kind": "wording-only"})
             for n in range(2)]
    for trace_id, verdict in zip(pairs, ("same", "different")):
        mlflow.log_expectation(trace_id=trace_id, name="expected_verdict", value=verdict, source=PERSON)
    mlflow.log_expectation(trace_id=trace(item(1)), name="human_mqm", value=-1.0, source=PERSON)
    data = load_training_data("mlflow:labels", tracking_uri=store)
    assert data.kind == "equiv" and [e.verdict for e in data.examples] == ["same", "different"]
    assert data.skipped == {OTHER_KIND: 1} and set(data.examples[0].inputs().keys()) == {"hypothesis_a", "hypothesis_b"}


def test_the_hash_follows_the_labels(store):
    trace_id = trace(item(1))
    mlflow.log_expectation(trace_id=trace_id, name="human_mqm", value=-1.0, source=PERSON)
    before = load_training_data("mlflow:labels", tracking_uri=store).hash
    mlflow.log_feedback(trace_id=trace_id, name="human_mqm", value=-1.0, source=AssessmentSource("LLM_JUDGE", "x"))
    assert load_training_data("mlflow:labels", tracking_uri=store).hash == before  # not a human: no change
    mlflow.log_feedback(trace_id=trace_id, name="human_mqm", value=-3.0, source=PERSON)
    assert load_training_data("mlflow:labels", tracking_uri=store).hash != before
    assert tl.MQM_LABEL == "human_mqm"

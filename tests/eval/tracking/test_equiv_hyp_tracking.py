"""Equivalence audit, perturbation generation and the hypothesis workflow in MLflow: traces with
their spans, the suite as a dataset, assessments against the expected verdicts (SQLite store)."""

from __future__ import annotations

import json

import mlflow
import pytest

from tribunal.eval.equiv.audit_job import run_audit
from tribunal.eval.equiv.rules.llm import LLMJudgeRule
from tribunal.eval.equiv.rules.tfidf import TfidfRule
from tribunal.eval.equiv.suite import Suite, load_suite
from tribunal.eval.tracking.mlflow_run import TrackingSettings, mlflow_client


@pytest.fixture
def settings(tmp_path):
    return TrackingSettings(uri=f"sqlite:///{tmp_path}/mlflow.db", experiment="equiv")


def traces_of(settings, run_id):
    mlflow.set_tracking_uri(settings.resolved_uri)
    experiment = mlflow_client(settings).get_run(run_id).info.experiment_id
    return mlflow.search_traces(locations=[experiment], run_id=run_id, return_type="list")


def test_llm_audit_traces_each_pair_with_its_votes_and_the_suite_as_dataset(scripted, settings):
    suite = Suite(name="small", hash="abc123", pairs=load_suite().pairs[:8])
    lm, engine = scripted.scripted_lm(lambda s, u: {"verdict": "different"})
    result = run_audit(suite, [LLMJudgeRule(lm, "full", threads=2), TfidfRule()], 1, settings)
    client = mlflow_client(settings)
    parent = client.get_run(result.run_id)
    (dataset,) = [d.dataset for d in parent.inputs.dataset_inputs]
    assert (dataset.name, dataset.digest) == ("perturbation-suite/small", "abc123")
    assert parent.info.run_name == "equiv audit | llm-full, tfidf | test | small x8"
    assert result.signature in parent.data.tags["mlflow.note.content"]  # every signed run gets a description
    children = {r.info.run_name: r for r in client.search_runs(
        [parent.info.experiment_id], f"tags.mlflow.parentRunId = '{result.run_id}'")}
    llm = children["llm-full | test"]
    traces = traces_of(settings, llm.info.run_id)
    assert len(traces) == 8
    for trace in traces:
        names = sorted(s.name for s in trace.data.spans)
        assert names == ["equivalence: llm-full", "vote 1 (ab)", "vote 2 (ba)"]  # two agreeing votes suffice
        vote = next(s for s in trace.data.spans if s.name == "vote 1 (ab)")
        assert vote.outputs["verdict"] == "different" and vote.inputs["hypothesis_a"]
        assert {a.name for a in trace.info.assessments} == {"expected_verdict", "llm-full_verdict"}
    # "different" everywhere: right on the 4 swaps, wrong on the 4 rewordings
    assert llm.data.metrics["judge_vs_expected.accuracy"] == 0.5
    assert len(traces_of(settings, children["tfidf >= 0.25"].info.run_id)) == 8
    assert "tribunal.FullRubricEquivalence" in {p.name for p in client.search_prompts()}


def test_equiv_generate_logs_a_run_with_counts_and_a_trace_per_attempt(scripted, settings, tmp_path):
    from tribunal.eval.equiv.checks import PERTURBATION_KINDS
    from tribunal.eval.tracking.generate_run import run_generation

    suite = Suite(name="small", hash="x", pairs=load_suite().pairs[:4])

    def reword(system, user):
        data = json.loads(scripted.field(user, "hypothesis"))
        return {"statement": data["statement"], "explanation": "In other words: " + data["explanation"],
                "steps": data["steps"], "relations": data["relations"]}

    lm, _ = scripted.scripted_lm(reword)
    result, run_id = run_generation(suite, lm, "scripted/test", settings, tmp_path / "gen.jsonl", 0.3, 1)
    run = mlflow_client(settings).get_run(run_id)
    kinds = len(PERTURBATION_KINDS)  # one original, every kind
    assert run.data.metrics["kept"] == len(result.kept) and run.data.metrics["kept"] + run.data.metrics["rejected"] == kinds
    assert len(traces_of(settings, run_id)) == kinds


def test_hypothesis_workflow_traces_each_opening_with_rounds(scripted, settings, tmp_path):
    from collections import Counter

    from tests.hyp.workflow_lm import scripted_responder
    from tribunal.eval.hyp.instance import load_instance
    from tribunal.eval.hyp.run_job import RunSettings, run_workflow

    lm, _ = scripted.scripted_lm(scripted_responder(scripted, Counter()))
    instance = load_instance()
    run_settings = RunSettings(depths=[0, 1], reruns=1, max_per_opening=1, threads=1)
    result = run_workflow([instance], run_settings, lm, {"model": "scripted/test"}, tmp_path / "runs", settings)
    traces = traces_of(settings, result.run_id)
    assert len(traces) == 2 * len(instance.opening_hypotheses)
    deep = next(t for t in traces if t.data.spans[0].name.startswith(f"workflow {instance.id}/d1-r0"))
    names = [s.name for s in deep.data.spans]
    assert "propose" in names and "critique round 1" in names and {"critic", "reviser"} <= set(names)
    assert "engagement judge" not in names  # the post-hoc judge runs after the workflow, on its own LM

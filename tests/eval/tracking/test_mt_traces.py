"""A tracked M-MAD run as the user sees it in MLflow: a trace per item with the span tree, the WMT23
slice as a dataset input, the prompts, judge-vs-human assessments; on SQLite and on a real server."""

from __future__ import annotations

import uuid

import mlflow

from tests.eval.mt.helpers import KEY_ENV, SECRET, loopback_config
from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tribunal.eval.mt.job import run_evaluation
from tribunal.eval.tracking.mlflow_run import TrackingSettings, mlflow_client

DIMENSIONS = {"accuracy", "fluency", "style", "terminology"}


def children(span, spans):
    return [s for s in spans if s.parent_id == span.span_id]


def check_tree(trace) -> set[str]:
    """The M-MAD span tree of one trace; returns the stage spans found under the root."""
    spans = trace.data.spans
    root = next(s for s in spans if s.parent_id is None)
    assert root.name == "M-MAD item" and root.inputs["source"] and root.inputs["translation"]
    stages = {s.name: s for s in children(root, spans)}
    agents = children(stages["stage 1: dimension agents"], spans)
    assert {a.name for a in agents} == DIMENSIONS
    for agent in agents:  # inputs, typed outputs, tokens, latency
        assert agent.span_type == "LLM" and "errors" in agent.outputs and agent.inputs["translation"]
        assert agent.attributes["mlflow.chat.tokenUsage"]["input_tokens"] > 0
        assert agent.end_time_ns > agent.start_time_ns
    for debate in children(stages.get("stage 2: debates", root), spans) if "stage 2: debates" in stages else []:
        assert debate.name.removeprefix("debate: ") in DIMENSIONS
        rounds = children(debate, spans)
        assert rounds and all(r.name.startswith("round ") for r in rounds)
        # the paper preset: both debaters each round, then the separate consensus check
        assert all(c.name in {"defender", "opposer", "consensus"} for r in rounds for c in children(r, spans))
        assert all({"defender", "opposer"} <= {c.name for c in children(r, spans)} for r in rounds)
    if "stage 3: final judge" in stages:
        assert [s.name for s in children(stages["stage 3: final judge"], spans)] == ["judge"]
    assert root.start_time_ns <= min(s.start_time_ns for s in spans)
    return set(stages)


def test_a_tracked_mmad_run_has_a_trace_per_item_datasets_prompts_and_assessments(tmp_path, monkeypatch, store_uri):
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "cache"))
    settings = TrackingSettings(uri=store_uri, experiment=f"traces-{uuid.uuid4().hex[:8]}")
    with loopback_server(synthetic_judge) as (api_base, _):
        result = run_evaluation(loopback_config(api_base, tmp_path / "out", limit=20, rated_only=True), settings)
    client = mlflow_client(settings)
    run = client.get_run(result.run_id)
    mlflow.set_tracking_uri(store_uri)
    traces = mlflow.search_traces(locations=[run.info.experiment_id], run_id=result.run_id, return_type="list")
    assert len(traces) == 20
    stages = set()
    for trace in traces:
        stages |= check_tree(trace)
        assert {a.name for a in trace.info.assessments} >= {"human_mqm", "M-MAD_mqm"}
    assert stages == {"stage 1: dimension agents", "stage 2: debates", "stage 3: final judge"}
    # the WMT23 slice as the run's dataset input, digest = the data hash in the signature
    (dataset,) = [d.dataset for d in run.inputs.dataset_inputs]
    slice_hash = result.signature.split("|data:wmt23/zh-en@")[1].split("|")[0]
    assert (dataset.name, dataset.digest) == ("wmt23/zh-en", slice_hash)
    # readable run: name, true duration, description with the signature, prompts linked
    assert run.info.run_name == "M-MAD consensus r3 | loopback-judge | wmt23 zh-en x20"
    assert (run.info.end_time - run.info.start_time) / 1000 >= result.summary["wall_seconds"]
    assert result.signature in run.data.tags["mlflow.note.content"]
    assert "judge_vs_human.kappa" in run.data.tags["mlflow.note.content"]  # key metrics first
    assert run.data.metrics["tracking.traces"] == 20 and "judge_vs_human.kappa" in run.data.metrics
    prompts = client.search_prompts(filter_string="name LIKE 'tribunal.%'")
    assert {"tribunal.GuidedAccuracyAssessment", "tribunal.AccuracyReexamination", "tribunal.ConsensusCheck",
            "tribunal.MergingJudgment"} <= {p.name for p in prompts}  # the paper preset's signatures


def test_a_tuned_program_run_carries_its_name_demo_count_and_prompts(tmp_path, monkeypatch):
    import dspy

    from tests.eval.mt.test_tuned_program import MARK
    from tribunal.data.program_export import export_document, write_export
    from tribunal.programs.mqm.gemba import GembaMQMJudge

    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "cache"))
    program = GembaMQMJudge()
    signature = program.annotate.signature
    program.annotate.signature = signature.with_instructions(signature.instructions + "\n" + MARK)
    program.annotate.demos = [dspy.Example(source=f"s{i}", translation=f"t{i}", source_lang="Chinese",
                                           target_lang="English", errors=[]) for i in range(4)]
    document = export_document(program, "gemba-mqm", {}, {"dev_score": 0.5})
    export = write_export(document, tmp_path / "gemba.json")
    settings = TrackingSettings(uri=f"sqlite:///{tmp_path}/mlflow.db", experiment="tuned")
    config = loopback_config("http://127.0.0.1:9/v1", tmp_path / "out", limit=3, program="gemba-mqm",
                             program_file=export, program_sha256=document["sha256"])
    with loopback_server(synthetic_judge) as (api_base, _):
        result = run_evaluation(config.model_copy(update={"lm": config.lm.model_copy(update={"api_base": api_base})}),
                                settings)
    name = f"GEMBA-MQM-tuned-{document['sha256'][:8]}"
    assert result.paths["seg"].name == f"{name}-src.seg.score"
    assert "|demos:4|" in result.signature
    run = mlflow_client(settings).get_run(result.run_id)
    assert run.info.run_name.startswith(name)
    version = mlflow_client(settings).get_prompt_version("tribunal.gemba-mqm.annotate", 1)
    assert version.template[0]["content"].endswith(MARK) and len(version.template) == 1 + 2 * 4 + 1


def test_sampling_keeps_unscored_items_and_their_reason(tmp_path, monkeypatch):
    from tribunal.eval.tracking.traces import sampled

    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "cache"))
    settings = TrackingSettings(uri=f"sqlite:///{tmp_path}/mlflow.db", experiment="sampling")
    first: dict[str, str] = {}

    def garbage_for_first(number, name, inputs):
        # every call about the first translation asked (the call and its two re-asks, whenever the
        # scheduler sends them) is unusable: that item stays unscored
        translation = str(inputs.get("translation"))
        return "garbage" if first.setdefault("translation", translation) == translation else None

    with loopback_server(synthetic_judge, fault=garbage_for_first) as (api_base, _):
        config = loopback_config(api_base, tmp_path / "out", limit=8, rated_only=True, concurrency=1,
                                 program="gemba-mqm")
        result = run_evaluation(config, settings, trace_sample=0.5)
    unscored = {k for k, r in result.results.items() if r.status == "unscored"}
    expected = unscored | {k for k in result.results if sampled(k, 0.5)}
    assert len(unscored) == 1 and 0 < len(expected) < 8
    run = mlflow_client(settings).get_run(result.run_id)
    mlflow.set_tracking_uri(settings.resolved_uri)
    traces = mlflow.search_traces(locations=[run.info.experiment_id], run_id=result.run_id, return_type="list")
    assert {t.info.tags["tribunal.key"] for t in traces} == expected
    # the run's second pass judged the unscored item once more: a trace per attempt, the second tagged
    attempts = [t for t in traces if t.info.tags["tribunal.key"] in unscored]
    assert sorted(t.info.tags.get("tribunal.attempt", "1") for t in attempts) == ["1", "2"]
    for failed in attempts:
        root = next(s for s in failed.data.spans if s.parent_id is None)
        assert failed.info.state == "ERROR" and root.attributes["tribunal.unscored_reason"].startswith("refusal")
    assert run.data.metrics["tracking.traces_sampled_out"] == 8 - len(expected)

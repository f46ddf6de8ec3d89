"""The proposer/critic/reviser workflow and the engagement judge, with a scripted LM."""

import json

import pytest

from tribunal.eval.hyp.instance import load_instance
from tribunal.eval.hyp.run_job import engagement_shares, execute_run, load_runs, run_workflow
from tribunal.eval.tracking.mlflow_run import TrackingSettings

LABELS = ["answered", "conceded", "partial", "dropped"]


def workflow_responder(scripted, chains=None):
    """Scripted roles, recognised by their instruction; counts each role's calls."""
    calls = {"propose": 0, "critique": 0, "revise": 0, "engage": 0}

    def respond(system, user):
        if "propose a precise mechanistic" in system:
            calls["propose"] += 1
            opening = scripted.field(user, "opening_hypothesis")
            chain = (chains or {}).get(opening[:20], ["metformin", "low vitamin B12", "nerve damage"])
            return {"statement": f"S {opening[:20]}", "explanation": "E", "causal_chain": chain}
        if "critical reviewer" in system:
            calls["critique"] += 1
            return {"demands": ["Show B12 levels.", "Rule out duration.", "Explain MMA.", "Cite a trial."]}
        if "Revise it in light" in system:
            calls["revise"] += 1
            return {"statement": "S revised", "explanation": "E2",
                    "causal_chain": ["metformin", "reduced ileal B12 uptake", "low vitamin B12", "axonal damage"],
                    "responses": ["r1", "r2", "r3", "r4"]}
        if "engages with one reviewer demand" in system:
            calls["engage"] += 1
            demand = scripted.field(user, "demand")
            return {"label": {"Show B12 levels.": "answered", "Rule out duration.": "conceded",
                              "Explain MMA.": "partial"}.get(demand, "dropped")}
        raise AssertionError(f"unexpected role: {system[:80]}")

    return respond, calls


def test_depth_two_run_counts_calls_and_labels_every_demand(scripted):
    respond, calls = workflow_responder(scripted)
    lm, _ = scripted.scripted_lm(respond)
    instance = load_instance()
    record = execute_run(instance, depth=2, rerun=0, lm=lm)
    slots = len(instance.opening_hypotheses)
    assert record.ok
    assert calls == {"propose": slots, "critique": 2 * slots, "revise": 2 * slots, "engage": 8 * slots}
    assert [d.label for d in record.demands[:4]] == LABELS
    assert {d.round for d in record.demands} == {1, 2}
    assert record.hypotheses[0].entities == ("metformin", "reduced ileal B12 uptake", "low vitamin B12", "axonal damage")


def test_depth_zero_delivers_the_proposal_without_critique(scripted):
    respond, calls = workflow_responder(scripted)
    lm, _ = scripted.scripted_lm(respond)
    record = execute_run(load_instance(), depth=0, rerun=0, lm=lm)
    assert calls["critique"] == 0 and record.demands == []
    assert record.hypotheses[0].id == "d0-r0/h0/k0"


def test_unparseable_engagement_label_is_unscored_not_a_default(scripted):
    respond, _ = workflow_responder(scripted)

    def garbled(system, user):
        return "[[ ## label ## ]]\nsort of" if "engages with one reviewer demand" in system else respond(system, user)

    lm, _ = scripted.scripted_lm(garbled)
    record = execute_run(load_instance(), depth=1, rerun=0, lm=lm)
    assert record.demands and all(d.label is None and d.error for d in record.demands)
    shares = engagement_shares([record])[1]
    assert shares["unscored"] == len(record.demands)
    assert shares["answered"] != shares["answered"]  # NaN: nothing labelled


def test_failed_slot_is_recorded_and_the_run_resumes(scripted, tmp_path):
    respond, calls = workflow_responder(scripted)
    fail = {"on": True}

    def flaky(system, user):
        if fail["on"] and "propose a precise" in system and "Long diabetes" in user:
            return "garbage"
        return respond(system, user)

    lm, _ = scripted.scripted_lm(flaky)
    tracking = TrackingSettings(enabled=False)
    first = run_workflow(load_instance(), [0, 1], 2, lm, {"model": "scripted/test"}, tmp_path, tracking, threads=2)
    assert len(first.records) == 4 and all(not r.ok for r in first.records)
    assert all(r.hypotheses[1] is None and "slot 1" in r.errors[0] for r in first.records)
    fail["on"] = False
    second = run_workflow(load_instance(), [0, 1], 2, lm, {"model": "scripted/test"}, tmp_path, tracking)
    assert second.reused == 0 and all(r.ok for r in second.records)
    proposals = calls["propose"]
    third = run_workflow(load_instance(), [0, 1], 2, lm, {"model": "scripted/test"}, tmp_path, tracking)
    assert third.reused == 4 and calls["propose"] == proposals  # nothing paid twice
    assert [r.run_id for r in load_runs(tmp_path)] == ["d0-r0", "d0-r1", "d1-r0", "d1-r1"]
    assert json.loads((tmp_path / "manifest.json").read_text())["reruns"] == 2

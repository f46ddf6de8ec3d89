"""The proposer/critic/reviser workflow: lineages, evidence, post-hoc engagement, resume, independent reruns."""

import json
import uuid
from collections import Counter

import dspy
import pytest

from tests.hyp.workflow_lm import scripted_responder
from tribunal.eval.hyp.instance import load_instance
from tribunal.eval.hyp.run_job import RunSettings, execute_run, load_runs, run_workflow
from tribunal.eval.tracking.mlflow_run import TrackingSettings

OFF = TrackingSettings(enabled=False)


def _lm(scripted, calls=None, **kwargs):
    calls = Counter() if calls is None else calls
    lm, engine = scripted.scripted_lm(scripted_responder(scripted, calls), **kwargs)
    return lm, engine, calls


def test_lineages_branch_up_to_the_cap_and_every_challenge_is_recorded(scripted):
    lm, _, calls = _lm(scripted)
    record = execute_run(load_instance(), depth=2, rerun=0, lm=lm, max_per_opening=3)
    assert record.ok and record.instance == "metformin-b12"
    # opening 0: 2 proposals -> round 1: 2 challenges, 4 revisions (3 kept) -> round 2: 3 challenges, 6 (3 kept)
    # openings 1 and 2: one hypothesis, one challenge per round
    assert calls == {"propose": 3, "critique": 5 + 2 + 2, "revise": 5 + 2 + 2}  # no engagement call inside
    assert [len(record.lineage(o)) for o in range(3)] == [3, 1, 1] and record.truncated == 1 + 3
    first = record.lineage(0)[0]
    assert first.id == "metformin-b12/d2-r0/o0/k2.0"
    parents = {d.hypothesis.id: d.parent for d in record.delivered}
    assert parents[first.id] == "metformin-b12/d2-r0/o0/k1.0"
    assert len(record.challenges) == 9 and {c.round for c in record.challenges} == {1, 2}
    challenge = record.challenges[0]
    assert challenge.hypothesis_id == "metformin-b12/d2-r0/o0/k0.0" and challenge.before.startswith("Statement: S0")
    assert challenge.responses == ["r1", "r2", "r3", "r4"] and challenge.after.count("Statement:") == 2
    assert challenge.labels == [] and record.engagement_judge is None


def test_one_hypothesis_per_opening_is_the_single_line_workflow(scripted):
    lm, _, calls = _lm(scripted)
    record = execute_run(load_instance(), depth=2, rerun=0, lm=lm, max_per_opening=1)
    assert calls == {"propose": 3, "critique": 6, "revise": 6}
    assert [len(record.lineage(o)) for o in range(3)] == [1, 1, 1]


def test_depth_zero_delivers_the_proposals_without_critique(scripted):
    lm, _, calls = _lm(scripted)
    record = execute_run(load_instance(), depth=0, rerun=0, lm=lm)
    assert calls == {"propose": 3} and record.challenges == []
    assert [h.id for h in record.hypotheses][:2] == ["metformin-b12/d0-r0/o0/k0.0", "metformin-b12/d0-r0/o0/k0.1"]


def test_evidence_passages_reach_every_workflow_prompt(scripted):
    lm, engine, _ = _lm(scripted)
    instance = load_instance()
    assert len(instance.evidence) == 2
    execute_run(instance, depth=1, rerun=0, lm=lm, max_per_opening=1)
    for system, user in engine.calls:
        assert "[[ ## evidence ## ]]\n[1] (illustrative passage (not a citation)) Metformin use" in user
        assert "[2] (illustrative passage (not a citation)) Raised methylmalonic acid" in user


def test_engagement_judge_runs_after_the_workflow_on_its_own_lm(scripted, tmp_path):
    lm, generation, gen_calls = _lm(scripted, temperature=0.7)
    judge, judge_engine, judge_calls = _lm(scripted, model="scripted/judge", temperature=0.0)
    settings = RunSettings(depths=[0, 1], reruns=2, max_per_opening=1, threads=2)
    result = run_workflow([load_instance()], settings, lm, {"model": "scripted/gen"}, tmp_path, OFF,
                          judge, {"model": "scripted/judge"})
    assert gen_calls["engage"] == 0  # the generation model never judges engagement
    assert judge_calls == {"engage": 2 * 3}  # depth 1: 2 reruns x 3 challenges, one call each; depth 0 has none
    assert judge.kwargs["temperature"] == 0.0
    assert result.labelled == 2
    for record in load_runs(tmp_path):  # the labels are stored with the runs
        for challenge in record.challenges:
            assert challenge.labels == ["answered", "conceded", "partial", "dropped"]
        assert record.engagement_judge == ("scripted/judge" if record.depth == 1 else None)
    again = run_workflow([load_instance()], settings, lm, {"model": "scripted/gen"}, tmp_path, OFF,
                         judge, {"model": "scripted/judge"})
    assert again.reused == 4 and again.labelled == 0 and judge_calls["engage"] == 6  # nothing paid twice
    other = run_workflow([load_instance()], settings, lm, {"model": "scripted/gen"}, tmp_path, OFF,
                         judge, {"model": "scripted/other-judge"})
    assert other.labelled == 2 and judge_calls["engage"] == 12 and gen_calls["propose"] == 12  # relabel only


def test_unparseable_or_miscounted_labels_are_unscored_not_defaulted(scripted, tmp_path):
    lm, _, _ = _lm(scripted)

    def short(system, user):
        return {"demand_labels": ["answered"]}  # one label for four demands

    judge, _ = scripted.scripted_lm(short)
    settings = RunSettings(depths=[1], reruns=1, max_per_opening=1)
    [record] = run_workflow([load_instance()], settings, lm, {"model": "g"}, tmp_path, OFF, judge,
                            {"model": "j"}).records
    assert all(c.labels == [None] * 4 and c.error.startswith("invalid answer: it gave 1 labels for 4 demands")
               for c in record.challenges)
    from tribunal.eval.hyp.engagement_job import engagement_shares

    shares = engagement_shares([record])[1]
    assert shares["unscored"] == 12 and shares["demands"] == 12
    assert shares["answered"] != shares["answered"]  # NaN: nothing labelled


def test_failed_opening_is_recorded_and_the_run_resumes(scripted, tmp_path):
    calls = Counter()
    respond = scripted_responder(scripted, calls)
    fail = {"on": True}

    def flaky(system, user):
        if fail["on"] and "Long diabetes" in user and "[[ ## opening_hypothesis ## ]]" in user:
            return "garbage"
        return respond(system, user)

    lm, _ = scripted.scripted_lm(flaky)
    settings = RunSettings(depths=[0, 1], reruns=2, max_per_opening=1, threads=2)
    first = run_workflow([load_instance()], settings, lm, {"model": "scripted/test"}, tmp_path, OFF)
    assert len(first.records) == 4 and all(not r.ok for r in first.records)
    assert all(r.lineage(1) == [] and r.errors[0].startswith("opening 1:") for r in first.records)
    fail["on"] = False
    second = run_workflow([load_instance()], settings, lm, {"model": "scripted/test"}, tmp_path, OFF)
    assert second.reused == 0 and all(r.ok for r in second.records)
    proposals = calls["propose"]
    third = run_workflow([load_instance()], settings, lm, {"model": "scripted/test"}, tmp_path, OFF)
    assert third.reused == 4 and calls["propose"] == proposals  # nothing paid twice
    assert [r.run_id for r in load_runs(tmp_path)] == ["d0-r0", "d0-r1", "d1-r0", "d1-r1"]
    assert (tmp_path / "runs" / "metformin-b12" / "d1-r1.json").is_file()
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["reruns"] == 2 and manifest["instances"][0]["id"] == "metformin-b12"


def test_reruns_are_never_replayed_from_the_response_cache(scripted, tmp_path):
    """With DSPy's cache on, every rerun and every new run directory pays for its own samples."""
    model = f"scripted/cache-{uuid.uuid4().hex}"  # the disk cache is shared machine-wide: a fresh key space
    calls = Counter()
    lm, _ = scripted.scripted_lm(scripted_responder(scripted, calls), model=model, temperature=0.7)
    lm.cache = True
    settings = RunSettings(depths=[0, 1], reruns=2, max_per_opening=1, threads=1)
    per_dir = 2 * 3 + 2 * (3 + 3 + 3)  # depth 0: 2 runs x 3 proposals; depth 1: 2 runs x (3 + 3 critiques + 3 revisions)
    run_workflow([load_instance()], settings, lm, {"model": model}, tmp_path / "a", OFF)
    assert sum(calls.values()) == per_dir  # identical prompts of reruns and depths were not served from the cache
    run_workflow([load_instance()], settings, lm, {"model": model}, tmp_path / "b", OFF)
    assert sum(calls.values()) == 2 * per_dir  # a new run directory samples afresh
    # the control: the same request without its own rollout id is served from the cache
    before = sum(calls.values())
    with dspy.context(lm=lm):
        execute_run(load_instance(), 0, 0, lm)
        execute_run(load_instance(), 0, 1, lm)
    assert sum(calls.values()) == before + 3


@pytest.mark.parametrize("max_per_opening", [0])
def test_a_cap_below_one_is_refused(max_per_opening):
    from tribunal.programs.hyp_workflow import HypothesisWorkflow

    with pytest.raises(ValueError):
        HypothesisWorkflow(1, max_per_opening)


def test_the_cap_keeps_a_descendant_of_every_live_hypothesis(scripted):
    # Opening 0 proposes two alternatives (ileal, intrinsic factor); each is revised into two. With a cap
    # of 2, keeping the first two revisions would deliver only the ileal line; the cap keeps one of each.
    lm, _, _ = _lm(scripted)
    for depth in (1, 2):
        record = execute_run(load_instance(), depth=depth, rerun=0, lm=lm, max_per_opening=2)
        delivered = [d for d in record.delivered if d.opening == 0]
        lines = {d.hypothesis.statement.split(" +")[0] for d in delivered}
        assert lines == {"S0 ileal uptake", "S0 intrinsic factor"}, [d.hypothesis.statement for d in delivered]
        assert len({d.parent for d in delivered}) == 2 and record.truncated == 2 * depth


def test_fair_share_takes_firsts_then_seconds_in_order():
    from tribunal.programs.hyp_workflow import fair_share

    assert fair_share([["a0", "a1", "a2"], ["b0", "b1"], ["c0"]], 3) == ["a0", "b0", "c0"]
    assert fair_share([["a0", "a1", "a2"], ["b0", "b1"], ["c0"]], 5) == ["a0", "a1", "b0", "b1", "c0"]
    assert fair_share([["a0", "a1"]], 3) == ["a0", "a1"]


def test_a_critic_that_stays_unusable_carries_the_previous_revision_on(scripted):
    """The workflow's fallback: a round without revision; the lineage keeps what the other calls paid for."""
    calls = Counter()
    base = scripted_responder(scripted, calls)

    def respond(system, user):
        from tests.hyp.workflow_lm import role_of

        return "I'd rather not say." if role_of(system) == "critique" else base(system, user)

    lm, _ = scripted.scripted_lm(respond)
    record = execute_run(load_instance(), depth=1, rerun=0, lm=lm, max_per_opening=1)  # a refusal, 3 asks each
    assert record.ok and record.errors == []
    assert len(record.degraded) == 3 and {d["role"] for d in record.degraded} == {"critic"}
    assert all(d["stood_in"].startswith("the previous revision") for d in record.degraded)
    # every opening delivers its proposal, unrevised: the k0 hypothesis goes on
    assert [h.id.rsplit("/", 1)[1] for h in record.hypotheses] == ["k0.0"] * 3
    assert record.challenges == [] and calls["revise"] == 0

"""Run divergence, lineage matching, extra divergence and cluster counts on constructed runs."""

import json
import math

import numpy as np
import pytest

from tests.hyp.constructed import FirstStepRule, depth_split_runs, run, store
from tribunal.eval.hyp.clustering import count_clusters
from tribunal.eval.hyp.divergence import divergence_matrix, extra_divergence, lineage_pairs, pair_key, slot_pairs
from tribunal.eval.hyp.divergence_job import DivergenceSettings, run_divergence
from tribunal.core.hyp_records import RunRecord
from tribunal.eval.tracking.mlflow_run import TrackingSettings

OFF = TrackingSettings(enabled=False)


def _ids(pairs):
    return [(x.id.rpartition("/o")[2], y.id.rpartition("/o")[2]) for x, y in pairs]


def _verdicts(runs):
    """First-step identity for every pair any matching can produce."""
    same = {}
    for a in runs:
        for b in runs:
            for x in a.hypotheses:
                for y in b.hypotheses:
                    same[pair_key(x, y)] = x.steps[0].entity == y.steps[0].entity
    return same


def test_lineage_matching_pairs_every_descendant_of_the_same_opening():
    # Run A: opening 0 -> alternatives P, Q; opening 1 -> R; opening 2 -> (failed).
    # Run B: opening 0 -> P; opening 1 -> R, S; opening 2 -> T.
    a = run("d1-r0", 1, [["P", "Q"], ["R"], []])
    b = run("d1-r1", 1, [["P"], ["R", "S"], ["T"]])
    # lineage: opening 0: 2 x 1, opening 1: 1 x 2, opening 2: 0 x 1 -> 4 pairs
    assert _ids(lineage_pairs(a, b)) == [("0/k0.0", "0/k0.0"), ("0/k0.1", "0/k0.0"),
                                         ("1/k0.0", "1/k0.0"), ("1/k0.0", "1/k0.1")]
    # slot (the earlier rule): the first hypothesis of each opening both runs have -> 2 pairs
    assert _ids(slot_pairs(a, b)) == [("0/k0.0", "0/k0.0"), ("1/k0.0", "1/k0.0")]
    same = _verdicts([a, b])
    # lineage: P-P same, Q-P different, R-R same, R-S different -> 2/4; slot: P-P, R-R -> 0/2
    assert divergence_matrix([a, b], same, lineage_pairs)[0, 1] == pytest.approx(0.5)
    assert divergence_matrix([a, b], same, slot_pairs)[0, 1] == pytest.approx(0.0)
    assert not a.ok and b.ok  # a delivered nothing for opening 2


def test_with_one_hypothesis_per_opening_both_matchings_agree():
    runs = [run("d0-r0", 0, [["a"], ["b"], ["c"]]), run("d0-r1", 0, [["a"], ["c"], ["c"]]),
            run("d1-r0", 1, [["b"], [], ["c"]])]
    same = _verdicts(runs)
    lineage, slot = divergence_matrix(runs, same, lineage_pairs), divergence_matrix(runs, same, slot_pairs)
    assert np.allclose(lineage, slot)
    assert lineage[0, 1] == pytest.approx(1 / 3)  # opening 1 differs (b vs c)
    assert lineage[0, 2] == pytest.approx(1 / 2)  # opening 1 unmatched; opening 0 differs, opening 2 same
    assert np.allclose(lineage, lineage.T) and np.all(np.diag(lineage) == 0)


def test_unscored_pairs_are_left_out_and_all_unscored_is_nan():
    runs = [run("d0-r0", 0, [["a"]]), run("d0-r1", 0, [["b"]])]
    key = pair_key(runs[0].hypotheses[0], runs[1].hypotheses[0])
    assert math.isnan(divergence_matrix(runs, {key: None})[0, 1])


def test_extra_divergence_on_constructed_matrix():
    # two groups of two: within .1 and .3, cross .5 .6 .7 .4
    m = np.array([[0, .1, .5, .6], [.1, 0, .7, .4], [.5, .7, 0, .3], [.6, .4, .3, 0]])
    assert extra_divergence(m, [0, 1], [2, 3]) == pytest.approx(0.55 - 0.20)


@pytest.mark.parametrize("n, edges, expected", [
    (3, [], 3), (3, [(0, 1)], 2), (3, [(0, 1), (1, 2)], 1), (4, [(0, 1), (2, 3)], 2), (0, [], 0),
])
def test_clusters_are_connected_components_of_the_same_graph(n, edges, expected):
    assert count_clusters(n, edges) == expected


def test_divergence_job_on_four_constructed_instances(tmp_path):
    """The hand-checked joint test of test_permutation, from stored runs through the job.

    Instances a..d have 5, 5, 4, 3 type-X runs at depth 0 (see tests/hyp/constructed.py):
    per-instance extras 1/3, 1/3, .28/3, -.08/3; two-sided joint p = 34,251 / 126^4.
    """
    runs = [r for name, k in zip("abcd", (5, 5, 4, 3)) for r in depth_split_runs(name, k)]
    store(tmp_path, runs)
    result = run_divergence(tmp_path, [FirstStepRule()], OFF, tmp_path / "out")
    [row] = result.divergence.to_dict("records")
    assert row["instances"] == row["tested"] == 4 and row["test"] == "exact"
    assert row["extra"] == pytest.approx((1 + 1 + 0.28 - 0.08) / 12)
    assert row["p_value"] == pytest.approx(34_251 / 126 ** 4, rel=1e-12)
    per_instance = {r["instance"]: r for r in result.by_instance.to_dict("records")}
    assert per_instance["a"]["p_value"] == pytest.approx(1 / 126) and per_instance["a"]["splits"] == 126
    assert per_instance["c"]["extra"] == pytest.approx(0.28 / 3)
    # three openings, one hypothesis each: 45 run pairs x 3 matched pairs per instance
    assert result.matching["run_pairs"].tolist() == [45] * 4 and result.matching["matched_pairs"].tolist() == [135] * 4
    assert (tmp_path / "out" / "divergence_by_instance.tsv").is_file()
    greater = run_divergence(tmp_path, [FirstStepRule()], OFF, None, DivergenceSettings(alternative="greater"))
    assert greater.divergence["alternative"].tolist() == ["greater"]


def test_perfectly_separated_instances_reach_p_below_1e4_through_the_job(tmp_path):
    store(tmp_path, [r for name in "abcd" for r in depth_split_runs(name, 5)])
    [row] = run_divergence(tmp_path, [FirstStepRule()], OFF).divergence.to_dict("records")
    assert row["p_value"] == pytest.approx(126 ** -4) and row["p_value"] < 1e-4


def test_matching_switch_changes_the_pairs_judged(tmp_path):
    # Depth 0 delivers P and Q for opening 0; depth 5 delivers P only.
    runs = [run(f"d0-r{r}", 0, [["P", "Q"], ["R"]]) for r in range(2)] + [run(f"d5-r{r}", 5, [["P"], ["R"]])
                                                                          for r in range(2)]
    store(tmp_path, runs)
    lineage = run_divergence(tmp_path, [FirstStepRule()], OFF)
    slot = run_divergence(tmp_path, [FirstStepRule()], OFF, None, DivergenceSettings(matching="slot"))
    # lineage: d0 x d0 pairs: 2x2 + 1 = 5 (P-P, P-Q, Q-P, Q-Q, R-R: 2 of 5 differ); d0 x d5: 2 + 1 = 3 (Q-P differs)
    assert lineage.matching["matched_pairs"].tolist() == [5 + 4 * 3 + 2]
    matrix = lineage.matrices[("first-step", "i")]
    assert matrix[0, 1] == pytest.approx(2 / 5) and matrix[0, 2] == pytest.approx(1 / 3) and matrix[2, 3] == 0
    assert slot.matching["matched_pairs"].tolist() == [6 * 2]
    assert np.all(slot.matrices[("first-step", "i")] == 0)
    clusters = {r["depth"]: r["mean"] for r in lineage.clusters.to_dict("records")}
    assert clusters == {0: 3.0, 5: 2.0}


def test_records_from_before_lineages_still_load_and_match_by_slot(tmp_path):
    legacy = {"run_id": "d1-r0", "depth": 1, "rerun": 0,
              "hypotheses": [run("x-r0", 0, [["P"]]).hypotheses[0].model_dump(), None],
              "demands": [{"slot": 0, "round": 1, "demand": "Show it.", "response": "r", "label": "answered"}]}
    record = RunRecord.model_validate_json(json.dumps(legacy))
    assert record.openings == 2 and [d.opening for d in record.delivered] == [0] and not record.ok
    assert record.challenges[0].demands == ["Show it."] and record.challenges[0].labels == ["answered"]


def test_the_llm_judge_is_framed_by_each_instance(scripted, tmp_path):
    from tribunal.eval.equiv.rules.llm import LLMJudgeRule
    from tribunal.eval.hyp.instance import load_instance

    example = load_instance().model_dump()
    manifest = {"instances": [{**example, "id": "a", "research_question": "Question A?"},
                              {**example, "id": "b", "research_question": "Question B?"}]}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    store(tmp_path, [run(f"d0-r{r}", 0, [["P"]], name) for name in "ab" for r in range(2)])
    lm, engine = scripted.scripted_lm(lambda s, u: {"verdict": "same"})
    run_divergence(tmp_path, [LLMJudgeRule(lm, "full", threads=1)], OFF)
    shown = {scripted.field(u, "instance_context") for _, u in engine.calls}
    assert shown == {"Question A?", "Question B?"}
    assert {scripted.field(u, "observed_finding") for _, u in engine.calls} == {example["observed_finding"]}
    engine.calls.clear()
    run_divergence(tmp_path, [LLMJudgeRule(lm, "full", threads=1)], OFF, None, DivergenceSettings(frame_judge=False))
    assert {scripted.field(u, "instance_context") for _, u in engine.calls} == {
        "Not given; both hypotheses address the same research question."}


def test_the_reported_extra_is_the_tested_statistic(tmp_path):
    """Instance e has five runs at depth 0 but four at depth 5: no split test. Its extra (1/3) is in
    ``extra_all`` only; ``extra``, ``cross`` and ``same_depth`` cover the four tested instances."""
    runs = [r for name, k in zip("abcd", (5, 5, 4, 3)) for r in depth_split_runs(name, k)]
    runs += depth_split_runs("e", 5)[:9]
    store(tmp_path, runs)
    [row] = run_divergence(tmp_path, [FirstStepRule()], OFF, tmp_path / "out").divergence.to_dict("records")
    assert row["instances"] == 5 and row["tested"] == 4
    assert row["extra"] == pytest.approx((1 + 1 + 0.28 - 0.08) / 12, rel=1e-12)
    assert row["extra"] == pytest.approx(row["cross"] - row["same_depth"], rel=1e-12)
    assert row["extra_all"] == pytest.approx((1 + 1 + 0.28 - 0.08 + 1) / 15, rel=1e-12)
    assert row["p_value"] == pytest.approx(34_251 / 126 ** 4, rel=1e-12)
    by_instance = {r["instance"]: r for r in run_divergence(tmp_path, [FirstStepRule()], OFF).by_instance.to_dict(
        "records")}
    assert [by_instance[i]["in_test"] for i in "abcde"] == [True] * 4 + [False]

"""Run divergence, extra divergence and cluster counts on constructed runs."""

import math

import numpy as np
import pytest

from tribunal.eval.equiv.rules.base import EquivalenceRule, Judgment
from tribunal.eval.hyp.clustering import count_clusters
from tribunal.eval.hyp.divergence import divergence_matrix, extra_divergence, pair_key
from tribunal.eval.hyp.divergence_job import run_divergence
from tribunal.eval.hyp.records import RunRecord, chain_hypothesis
from tribunal.eval.tracking.mlflow_run import TrackingSettings


def _run(run_id, depth, chains):
    hyps = [None if c is None else chain_hypothesis(f"{run_id}/h{s}", "s", "e", c) for s, c in enumerate(chains)]
    return RunRecord(run_id=run_id, depth=depth, rerun=int(run_id[-1]), hypotheses=hyps)


class ChainRule(EquivalenceRule):
    """Same iff the first steps match (a constructed, deterministic rule)."""
    name = "first-step"

    def judge_pairs(self, pairs, repeat=0):
        return [Judgment(same=a.steps[0].entity == b.steps[0].entity) for a, b in pairs]

    def params(self):
        return {}


A, B, C = ["a", "x", "y"], ["b", "x", "y"], ["c", "x", "y"]


def test_divergence_is_share_of_matched_pairs_judged_different():
    runs = [_run("d0-r0", 0, [A, B, C]), _run("d0-r1", 0, [A, C, C]), _run("d1-r0", 1, [B, None, C])]
    pairs = {}
    for i in range(3):
        for j in range(i + 1, 3):
            for x, y in zip(runs[i].hypotheses, runs[j].hypotheses):
                if x and y:
                    pairs[pair_key(x, y)] = x.steps[0].entity == y.steps[0].entity
    matrix = divergence_matrix(runs, pairs)
    assert matrix[0, 1] == pytest.approx(1 / 3)      # slot 1 differs (b vs c)
    assert matrix[0, 2] == pytest.approx(1 / 2)      # slot 1 unmatched; slot 0 differs, slot 2 same
    assert matrix[1, 2] == pytest.approx(1 / 2)
    assert np.allclose(matrix, matrix.T) and np.all(np.diag(matrix) == 0)


def test_unscored_pairs_are_left_out_and_all_unscored_is_nan():
    runs = [_run("d0-r0", 0, [A]), _run("d0-r1", 0, [B])]
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


def test_divergence_job_end_to_end_on_constructed_runs(tmp_path):
    # depth 0 runs all deliver [A, B, C]; depth 5 runs deliver [A, A, A] -> collapse to one cluster
    runs = [_run(f"d0-r{r}", 0, [A, B, C]) for r in range(5)] + [_run(f"d5-r{r}", 5, [A, A, A]) for r in range(5)]
    (tmp_path / "runs").mkdir()
    for run in runs:
        (tmp_path / "runs" / f"{run.run_id}.json").write_text(run.model_dump_json())
    result = run_divergence(tmp_path, [ChainRule()], TrackingSettings(enabled=False), tmp_path / "out")
    [row] = result.divergence.to_dict("records")
    # same-depth divergence 0; cross-depth: slots 1 and 2 differ -> 2/3
    assert row["cross"] == pytest.approx(2 / 3) and row["same_depth"] == pytest.approx(0.0)
    assert row["extra"] == pytest.approx(2 / 3)
    assert row["splits"] == 126 and row["p_value"] == pytest.approx(1 / 126)
    clusters = {r["depth"]: r["mean"] for r in result.clusters.to_dict("records")}
    assert clusters == {0: 3.0, 5: 1.0}
    assert (tmp_path / "out" / "divergence.tsv").is_file()

"""``tribunal mt agreement`` through the real entry point: user files, WMT23's raters, MLflow, errors."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from scipy.stats import kendalltau, pearsonr

from tests.conftest import write
from tests.support.cli import assert_one_line_error, run_cli

RATERS = {"r1": [0, -1, -5, -6, -2, -25, 0, -1, -10, -3],
          "r2": [0, -2, -5, -10, -1, -20, -1, -1, -6, -5],
          "r3": [-1, -1, -6, -5, 0, -30, 0, -0.1, -5, -2]}
JUDGE = [0, -5, -5, -5, 0, -25, -1, -1, -10, -1]


def user_files(tmp_path):
    lines = [json.dumps({"item": f"seg{i}", "rater": r, "score": s}) for r, scores in RATERS.items()
             for i, s in enumerate(scores)]
    ratings = write(tmp_path / "ratings.jsonl", "\n".join(lines) + "\n")
    judge = write(tmp_path / "judge.jsonl", "".join(json.dumps({"item": f"seg{i}", "rater": "my-judge", "score": s}) + "\n"
                                                    for i, s in enumerate(JUDGE)))
    return ratings, judge


def test_user_files_with_a_judge_table_tsv_and_mlflow(tmp_path, capsys, empty_sqlite_store):
    ratings, judge = user_files(tmp_path)
    store = f"sqlite:///{shutil.copyfile(empty_sqlite_store, tmp_path / 'mlflow.db')}"
    output = tmp_path / "agreement.tsv"
    outcome = run_cli(capsys, "mt", "agreement", "--ratings", ratings, "--scale", "mqm", "--judge", judge,
                      "--judge-scale", "mqm", "--samples", "200", "--seed", "5", "--kappa-weights", "linear",
                      "--output", output, "--tracking-uri", store, "--experiment", "agreement-test")
    assert outcome.status == 0, outcome.err
    r1, r2 = np.array(RATERS["r1"], float), np.array(RATERS["r2"], float)
    pearson = pearsonr(r1, r2).statistic
    assert "agreement on 10 items rated by 3 raters" in outcome.out and "linear weights" in outcome.out
    assert f"{pearson:.4f} [" in outcome.out and "my-judge vs r3" in outcome.out
    table = {row.split("\t")[0]: row.split("\t") for row in output.read_text().splitlines()}
    header = table["comparison"]
    assert header[:6] == ["comparison", "kind", "items", "alpha_interval", "alpha_interval_low", "alpha_interval_high"]
    assert "kappa_linear" in header and "kendall_tau_b_high" in header
    pair = dict(zip(header, table["r1 vs r2"]))
    assert float(pair["pearson"]) == pytest.approx(pearson)
    assert float(pair["pearson_low"]) <= pearson <= float(pair["pearson_high"])
    judged = dict(zip(header, table["my-judge vs r1"]))
    assert float(judged["kendall_tau_b"]) == pytest.approx(kendalltau(JUDGE, r1).statistic)
    share = dict(zip(header, table["judge / raters mean pairwise"]))
    mean = dict(zip(header, table["raters: mean pairwise"]))
    judge_mean = dict(zip(header, table["my-judge: mean over raters"]))
    assert float(share["pearson"]) == pytest.approx(float(judge_mean["pearson"]) / float(mean["pearson"]))

    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=store)
    run = client.get_run(outcome.out.split("MLflow run ")[1].split(";")[0])
    assert run.data.params["raters"] == "r1,r2,r3" and run.data.params["judge"] == "my-judge"
    assert run.data.params["kappa_weights"] == "linear" and run.data.tags["tribunal.command"] == "mt agreement"
    assert run.data.metrics["agreement.r1_vs_r2.pearson"] == pytest.approx(pearson)
    assert run.data.metrics["agreement.judge_vs_r1.kendall_tau_b"] == pytest.approx(float(judged["kendall_tau_b"]))
    assert run.data.metrics["agreement.judge_share.pearson"] == pytest.approx(float(share["pearson"]))
    assert "agreement.raters_mean_pairwise.kendall_tau_b_low" in run.data.metrics
    artifacts = {a.path for a in client.list_artifacts(run.info.run_id)}
    assert {"agreement.tsv", "agreement_items.tsv"} <= artifacts
    assert client.get_experiment(run.info.experiment_id).name == "agreement-test"


def test_wmt23_raters_by_name_and_a_metric_as_the_judge(wmt23_root, capsys):
    comet = wmt23_root / "metric-scores" / "zh-en" / "COMET-refA.seg.score"
    outcome = run_cli(capsys, "mt", "agreement", "--data", wmt23_root, "--lp", "zh-en", "--human", "mqm.rater1",
                      "--human", "mqm.rater2", "--judge", comet, "--samples", "100", "--no-track")
    assert outcome.status == 0, outcome.err
    first = next(line for line in outcome.out.splitlines() if "mqm.rater1 vs mqm.rater2" in line)
    cells = first.split("│")
    # The cells both raters rated that COMET scored (COMET-refA has no score for refA itself: 288 - 18).
    assert "items rated by 2 raters" in outcome.out and cells[2].strip() == "270"
    import krippendorff

    from tribunal.data.judge_scores import read_judge
    from tribunal.data.mtme import LanguagePair
    from tribunal.data.multi_ratings import wmt_raters

    pair = LanguagePair(wmt23_root, "zh-en")
    table = wmt_raters(pair, ["mqm.rater1", "mqm.rater2"])
    keep = ~np.isnan(table.scores).any(axis=0) & ~np.isnan(read_judge(comet, pair).aligned(table.items))
    alpha = krippendorff.alpha(reliability_data=table.scores[:, keep], level_of_measurement="interval")
    assert keep.sum() == 270 and cells[3].strip().startswith(f"{alpha:.4f} [")
    assert "n/a (the judge's scores are on another scale than the raters')" in outcome.out


@pytest.mark.parametrize("args, fragments", [
    (["--ratings", "R", "--data", "D"], ["--data: names a WMT layout's raters, but --ratings gives your own"]),
    (["--data", "D"], ["no language pair: pass --lp LP"]),
    (["--ratings", "R", "--kappa-weights", "cubic"], ["--kappa-weights cubic: choose from linear, quadratic"]),
    (["--ratings", "R", "--scale", "likert"], ["--scale likert: choose from mqm, esa, other"]),
    (["--ratings", "R", "--judge", "J", "--judge-scale", "x"], ["--judge-scale x: choose from mqm, esa, other"]),
])
def test_bad_options_are_one_line_errors(tmp_path, capsys, args, fragments):
    ratings, judge = user_files(tmp_path)
    (tmp_path / "D" / "sources").mkdir(parents=True)
    paths = {"R": str(ratings), "D": str(tmp_path / "D"), "J": str(judge)}
    outcome = run_cli(capsys, "mt", "agreement", *[paths.get(a, a) for a in args], "--no-track")
    assert_one_line_error(outcome, *fragments)


def test_a_bad_user_line_stops_before_anything_is_written(tmp_path, capsys):
    ratings = write(tmp_path / "ratings.jsonl", '{"item": "a", "rater": "x", "score": -1}\n{"item": "a", "rater": "y"}\n')
    output = tmp_path / "out.tsv"
    outcome = run_cli(capsys, "mt", "agreement", "--ratings", ratings, "--output", output, "--no-track")
    assert_one_line_error(outcome, f"{ratings}:2: missing key 'score'")
    assert not output.exists()
    one_rater = write(tmp_path / "one.jsonl", '{"item": "a", "rater": "x", "score": -1}\n')
    outcome = run_cli(capsys, "mt", "agreement", "--ratings", one_rater, "--no-track")
    assert_one_line_error(outcome, "agreement needs at least two raters (found 1: x)")

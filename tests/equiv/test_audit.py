"""Audit statistics, threshold sweep and the audit job on the shipped suite (TF-IDF only: fast)."""

import math

import pytest

from tribunal.eval.equiv.audit import kind_shares, order_flip_rate, repeat_consistency
from tribunal.eval.equiv.audit_job import run_audit
from tribunal.core.judgment import Judgment, Vote
from tribunal.eval.equiv.rules.tfidf import TfidfRule
from tribunal.eval.equiv.suite import Suite, load_suite
from tribunal.eval.equiv.sweep import threshold_sweep
from tribunal.eval.tracking.mlflow_run import TrackingSettings


def J(same, ab=None, ba=None):
    votes = tuple(Vote(order=o, same=v) for o, v in (("ab", ab), ("ba", ba)) if v is not None)
    return Judgment(same=same, votes=votes)


def test_kind_shares_count_unscored_apart():
    suite = load_suite()
    kinds = ["wording-only", "wording-chain", "first-step-swapped", "middle-step-swapped"]
    pairs = [next(p for p in suite.pairs if p.kind == kind) for kind in kinds]  # one of each kind
    table = kind_shares(pairs, [J(True), J(None), J(False), J(True)])
    rows = {r["kind"]: r for r in table.to_dict("records")}
    assert rows["wording-only"]["share_different"] == 0.0
    assert rows["wording-chain"]["scored"] == 0 and math.isnan(rows["wording-chain"]["share_different"])
    assert rows["first-step-swapped"]["share_different"] == 1.0


def test_order_flip_and_repeat_consistency():
    assert order_flip_rate([J(True, True, False), J(True, True, True), J(None)]) == 0.5
    assert repeat_consistency([[J(True), J(False), J(None)], [J(True), J(True), J(True)]]) == 0.5
    assert math.isnan(repeat_consistency([[J(True)]]))


def test_threshold_sweep_shares_are_monotone_and_bounded():
    kinds = ["wording-only", "first-step-swapped"]
    table = threshold_sweep(kinds, [0.9, 0.5], grid=[0.0, 0.6, 1.0])
    assert table["first-step-swapped"].tolist() == [0.0, 1.0, 1.0]
    assert table["wording-only"].tolist() == [0.0, 0.0, 1.0]
    assert table["balanced_accuracy"].tolist()[1] == 1.0


def test_tfidf_audit_job_writes_tables_and_plot(tmp_path):
    suite = load_suite()
    result = run_audit(suite, [TfidfRule(), TfidfRule(0.9)], repeats=2, tracking=TrackingSettings(enabled=False),
                       out=tmp_path)
    table = result.table()
    assert list(table.columns[:8]) == ["rule", "wording-only", "wording-chain", "alias-chain", "first-step-swapped",
                                       "middle-step-swapped", "first-step-minimal", "middle-step-minimal"]
    assert table.loc[0, "order_flip_rate"] == 0.0 and table.loc[0, "repeat_consistency"] == 1.0
    assert len(result.agreement) == 1
    assert (tmp_path / "sweep_tfidf.png").stat().st_size > 1000
    assert (tmp_path / "items_tfidf.tsv").read_text().count("\n") == 1 + 280 * 2
    assert "data:hypotheses@" in result.signature


def test_audit_is_logged_as_parent_with_one_nested_run_per_rule(tmp_path):
    from mlflow.tracking import MlflowClient

    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    suite = Suite(name="small", hash="h", pairs=load_suite().pairs[:8])
    result = run_audit(suite, [TfidfRule(), TfidfRule(0.5)], 1, TrackingSettings(uri=uri, experiment="t"))
    client = MlflowClient(uri)
    children = client.search_runs([client.get_experiment_by_name("t").experiment_id],
                                  f"tags.mlflow.parentRunId = '{result.run_id}'")
    assert len(children) == 2
    assert "different/first-step-swapped" in children[0].data.metrics


def test_user_kinds_become_valid_mlflow_metric_names(tmp_path):
    from mlflow.tracking import MlflowClient

    from tribunal.eval.equiv.rules.chain import ChainRule

    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    pairs = tuple(p.model_copy(update={"kind": "mine (v2)!", "label": "same" if p.expected_same else "different"})
                  for p in load_suite().pairs[:4])
    result = run_audit(Suite(name="mine", hash="h", pairs=pairs), [ChainRule(vectors="tfidf"), TfidfRule()], 1,
                       TrackingSettings(uri=uri, experiment="t"))
    client = MlflowClient(uri)
    children = client.search_runs([client.get_experiment_by_name("t").experiment_id],
                                  f"tags.mlflow.parentRunId = '{result.run_id}'")
    assert all("different/mine _v2__" in child.data.metrics for child in children)
    assert result.table().columns[1] == "mine (v2)!"

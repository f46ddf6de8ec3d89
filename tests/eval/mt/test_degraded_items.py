"""Programs degrade the way their method allows: one unusable role no longer sinks an M-MAD item.

Over loopback HTTP with the scripted judge: a debater (or the final judge) that answers garbage every
time leaves the item scored, marked degraded with the fallback M-MAD defines (the dimension's stage-1
annotation; the verdicts merged by the most-severe rule), and ``strict`` unscores it as before.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tribunal.data.mtme import LanguagePair
from tribunal.eval.mt.job import run_evaluation
from tribunal.core.item_result import ItemResult
from tribunal.eval.mt.journal import Journal
from tribunal.eval.tracking.mlflow_run import TrackingSettings
from tribunal.programs.mqm.merging import merge_most_severe
from tribunal.signatures.mqm.errors import DimensionError

from .helpers import KEY_ENV, SECRET, loopback_config
from tests.support.judging_paths import either_judging  # noqa: F401  (a fixture: both judging paths)

pytestmark = pytest.mark.usefixtures("either_judging")

OFF = TrackingSettings(enabled=False)


@pytest.fixture
def api_key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def _garbage(suffix):
    """Every request of a signature ending in ``suffix`` is answered with JSON of the wrong keys."""
    return lambda number, name, inputs: "wrong-keys" if name.endswith(suffix) else None


def _config(api_base, out, **overrides):
    config = loopback_config(api_base, out, **({"limit": 6} | overrides))
    return config.model_copy(update={"lm": config.lm.model_copy(update={"timeout": 30.0, "num_retries": 0})})


def _stage(transcript, stage, **match):
    return [t for t in transcript if t["stage"] == stage and all(t.get(k) == v for k, v in match.items())]


def test_a_debater_that_always_answers_garbage_leaves_its_dimension_with_the_stage1_annotation(tmp_path, api_key):
    mmad = {"ablate": ("stage3",)}  # the final errors are the verdicts themselves: the fallback is visible in them
    with loopback_server(synthetic_judge, _garbage("AccuracyReexamination")) as (api_base, state):
        result = run_evaluation(_config(api_base, tmp_path / "out", mmad=mmad), OFF)
        strict = run_evaluation(_config(api_base, tmp_path / "strict", mmad=mmad, strict=True), OFF)
    degraded = [r for r in result.results.values() if r.degraded]
    assert degraded, "the scripted judge gives some item an accuracy error worth debating"
    assert result.summary["unscored"] == 0 and result.summary["degraded"] == len(degraded)
    for result_item in degraded:
        assert result_item.status == "scored" and result_item.score is not None
        item = result_item.model_dump()  # the journal line
        [fallback] = item["degraded"]
        assert fallback["role"] in ("defender", "opposer") and fallback["subject"] == "accuracy"
        assert "stage-1 annotation" in fallback["stood_in"] and "\n" not in fallback["reason"]
        [stage1] = _stage(item["transcript"], "stage1", role="accuracy")
        [debate] = _stage(item["transcript"], "stage2", dimension="accuracy")
        assert debate["decided_by"] == "fallback" and debate["degraded"] == fallback
        assert result_item.debates["accuracy"] == {"rounds": debate["rounds"], "consensus": None, "decided_by": "fallback"}
        final_accuracy = [e for e in item["errors"] if e["dimension"] == "accuracy"]
        assert final_accuracy == stage1["errors"]  # the stage-1 annotation stands, as without stage 2
    assert set(result.summary["degraded_by_role"]) <= {"defender", "opposer"}
    rows = [json.loads(line) for line in result.paths["errors"].read_text().splitlines()]
    assert {r["key"] for r in rows if r.get("degraded")} == {r.key for r in degraded}
    marks = json.loads(result.paths["degraded"].read_text())
    assert sum(len(v) for v in marks.values()) == sum(1 for r in rows if r.get("degraded"))
    # --strict: no fallback, the same items are unscored with the debater's one-line reason
    unscored = {k for k, r in strict.results.items() if r.status == "unscored"}
    assert unscored == {r.key for r in degraded} and strict.summary["degraded"] == 0
    assert all("defender" in strict.results[k].reason or "opposer" in strict.results[k].reason for k in unscored)
    assert strict.signature != result.signature and "strict:yes" in strict.signature


def test_a_final_judge_that_stays_unusable_is_replaced_by_the_most_severe_merge(tmp_path, api_key):
    mmad = {"ablate": ("stage2",)}  # the verdicts are the stage-1 annotations, so the merge can be redone here
    with loopback_server(synthetic_judge, _garbage("MergingJudgment")) as (api_base, state):
        result = run_evaluation(_config(api_base, tmp_path / "out", mmad=mmad), OFF)
    texts = {json.loads(line)["key"]: json.loads(line)["translation"]
             for line in result.paths["transcripts"].read_text().splitlines()}
    lines = [r.model_dump() for r in result.results.values()]  # as journaled
    judged = [r for r in lines if "skipped" not in _stage(r["transcript"], "stage3")[0]]
    assert judged and all(r["status"] == "scored" and [d["role"] for d in r["degraded"]] == ["judge"] for r in judged)
    for item in judged:
        assert item["degraded"][0]["stood_in"].startswith("the dimension verdicts merged by the most-severe rule")
        stage1 = [DimensionError(**e) for t in _stage(item["transcript"], "stage1") for e in t["errors"]]
        assert item["errors"] == [e.model_dump() for e in merge_most_severe(stage1, texts[item["key"]])]


def test_degraded_items_can_be_left_out_of_the_scores(tmp_path, api_key):
    with loopback_server(synthetic_judge, _garbage("AccuracyReexamination")) as (api_base, state):
        kept = run_evaluation(_config(api_base, tmp_path / "in"), OFF)
        left = run_evaluation(_config(api_base, tmp_path / "out", degraded="exclude"), OFF)
    degraded = {k for k, r in kept.results.items() if r.degraded}
    assert degraded and {k for k, r in left.results.items() if r.degraded} == degraded  # journaled either way
    assert "degraded:exclude" in left.signature and "degraded" not in left.paths
    # the score files: degraded cells blank when excluded; mt meta-eval's --degraded exclude reads them the same
    data = loopback_config("x", tmp_path).data
    with_marks = LanguagePair(data, "zh-en", extra_metric_roots=(tmp_path / "in" / "metric-scores",),
                              exclude_degraded=True)
    without = LanguagePair(data, "zh-en", extra_metric_roots=(tmp_path / "out" / "metric-scores",))
    name = kept.paths["seg"].name.removesuffix(".seg.score")
    masked, blank = with_marks.metric_seg(name), without.metric_seg(name)
    assert set(masked) == set(blank)
    for system in masked:
        np.testing.assert_array_equal(np.isnan(masked[system]), np.isnan(blank[system]))
    plain = LanguagePair(data, "zh-en", extra_metric_roots=(tmp_path / "in" / "metric-scores",)).metric_seg(name)
    assert sum(np.isfinite(v).sum() for v in plain.values()) > sum(np.isfinite(v).sum() for v in masked.values())


def test_retry_unscored_judges_degraded_items_again(tmp_path):
    journal = Journal(tmp_path / "journal.jsonl", "sig")
    journal.append(ItemResult(key="a", status="scored", score=-1.0,
                              degraded=[{"role": "opposer", "reason": "r", "stood_in": "s"}]))
    journal.append(ItemResult(key="b", status="scored", score=-1.0))
    assert journal.done("a") and journal.done("b")
    assert not journal.done("a", retry_unscored=True) and journal.done("b", retry_unscored=True)


def test_mqm_ape_keeps_an_error_whose_post_edit_stays_unusable(tmp_path, api_key):
    with loopback_server(synthetic_judge, _garbage("PostEdit")) as (api_base, state):
        result = run_evaluation(_config(api_base, tmp_path / "out", program="mqm-ape"), OFF)
        strict = run_evaluation(_config(api_base, tmp_path / "strict", program="mqm-ape", strict=True), OFF)
    with_errors = [r.model_dump() for r in result.results.values() if _stage(r.model_dump()["transcript"], "verify")]
    assert with_errors, "the scripted judge finds errors in some item"
    for item in with_errors:
        assert item["status"] == "scored" and {d["role"] for d in item["degraded"]} == {"post_editor"}
        [evaluated] = _stage(item["transcript"], "evaluate")
        assert [e["span"] for e in item["errors"]] == [e["span"] for e in evaluated["errors"]]  # kept, unverified
    assert {k for k, r in strict.results.items() if r.status == "unscored"} == {r["key"] for r in with_errors}


def test_the_command_line_says_degraded_and_meta_eval_can_leave_them_out(tmp_path, capsys, api_key):
    from tests.support.cli import run_cli

    out = tmp_path / "out"
    common = ["--lp", "zh-en", "--lm", "openai/loopback-judge", "--api-key-env", KEY_ENV, "--demos", "0",
              "--limit", "6", "--rated-only", "--no-track", "--timeout", "30"]
    with loopback_server(synthetic_judge, _garbage("AccuracyReexamination")) as (api_base, state):
        judged = run_cli(capsys, "mt", "evaluate", "--api-base", api_base, "--out", str(out), *common)
        strict = run_cli(capsys, "mt", "evaluate", "--api-base", api_base, "--out", str(tmp_path / "strict"),
                         "--strict", *common)
        left = run_cli(capsys, "mt", "evaluate", "--api-base", api_base, "--out", str(tmp_path / "left"),
                       "--degraded", "exclude", *common)
    assert judged.status == 0, judged.err
    [items] = [line for line in judged.out.splitlines() if line.startswith("items:")]
    degraded = int(items.split("(of which ")[1].split(" ")[0])
    assert degraded >= 1 and "  degraded: scored with a fallback" in judged.out
    assert strict.status == 3 and f"unscored {degraded}," in strict.out  # --strict: the same items unscored
    assert left.status == 0 and "left out of the scores and the tables (--degraded exclude)" in left.out
    data = str(loopback_config("x", tmp_path).data)
    tables = {}
    for mode in ("include", "exclude"):
        tables[mode] = run_cli(capsys, "mt", "meta-eval", "--data", data, "--lp", "zh-en", "--scores",
                               str(out / "metric-scores"), "--coverage-limited", "--degraded", mode, "--no-track")
        assert tables[mode].status == 0, tables[mode].err
    assert tables["include"].out != tables["exclude"].out  # the degraded cells left out move the judge's row
    bad = run_cli(capsys, "mt", "meta-eval", "--data", data, "--degraded", "sometimes", "--no-track")
    assert bad.status == 2 and "use include or exclude" in bad.err

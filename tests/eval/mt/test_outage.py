"""Outages over real HTTP (the loopback server's fault injection) as a user meets them on the command line.

A rerun of the same command judges again the items that got no answer (server errors, rate
limits, timeouts, dropped connections); items whose answer was unusable need ``--retry-unscored``.
A run with unscored items exits 3 and says how many and why; a tracked run is FINISHED in MLflow
with the unscored counts as metrics.
"""

from __future__ import annotations

import hashlib
import json

from tests.support.cli import run_cli
from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tribunal.errors import EXIT_UNSCORED
from tribunal.core.item_result import ItemResult

from .helpers import KEY_ENV, SECRET, wmt23


def evaluate_args(api_base: str, out, config, *extra: str) -> list[str]:
    return ["mt", "evaluate", "--data", wmt23(), "--lp", "zh-en", "--lm", "openai/loopback-judge", "--api-base",
            api_base, "--api-key-env", KEY_ENV, "--limit", "12", "--demos", "0", "--concurrency", "4",
            "--out", out, "--config", config, *extra]


def lm_config(tmp_path) -> str:
    """No response cache (only the journal may save calls) and quick retries."""
    path = tmp_path / "lm.json"
    path.write_text(json.dumps({"lm": {"cache": False, "num_retries": 1, "timeout": 5}}))
    return str(path)


def kind(translation: str) -> str | None:
    return {0: "500", 1: "garbage"}.get(int(hashlib.sha256(translation.encode()).hexdigest()[:6], 16) % 4)


def journal(out) -> dict[str, ItemResult]:
    path = next(out.glob("journal-*.jsonl"))
    lines = path.read_text(encoding="utf-8").splitlines()[1:]
    return {r.key: r for r in map(ItemResult.model_validate_json, lines)}  # later lines win, as on resume


def judged(hits) -> set[str]:
    return {h[2]["translation"] for h in hits if "translation" in h[2]}


def test_a_rerun_retries_items_without_an_answer_and_retry_unscored_the_rest(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(KEY_ENV, SECRET)
    faults = {"500", "garbage"}

    def fault(_number, name, inputs):
        found = kind(str(inputs.get("translation", "")))
        return found if found in faults and name.endswith("AccuracyAssessment") else None

    out, config = tmp_path / "out", lm_config(tmp_path)
    with loopback_server(synthetic_judge, fault) as (api_base, state):
        first = run_cli(capsys, *evaluate_args(api_base, out, config, "--no-track"))
        records = journal(out)
        outage = {k for k, r in records.items() if r.status == "unscored" and r.retryable}
        unusable = {k for k, r in records.items() if r.status == "unscored" and not r.retryable}
        assert outage and unusable, "the slice must exercise both kinds"
        assert first.status == EXIT_UNSCORED, first.err
        assert f"unscored {len(outage) + len(unusable)}" in first.out
        assert f"{len(outage)} unscored without an answer" in first.out and "rerun the same command" in first.out
        assert f"{len(unusable)} unscored with an unusable answer" in first.out and "--retry-unscored" in first.out
        assert all(r.reason.startswith("server error") for k, r in records.items() if k in outage)
        assert all(r.reason.startswith("refusal") for k, r in records.items() if k in unusable)

        faults.discard("500")  # the outage is over; the unusable answers stay unusable
        before = len(state.hits)
        second = run_cli(capsys, *evaluate_args(api_base, out, config, "--no-track"))
        retried = judged(state.hits[before:])
        records = journal(out)
        assert second.status == EXIT_UNSCORED and f"resumed from journal {12 - len(outage)}" in second.out
        assert all(records[k].status == "scored" for k in outage)
        assert all(records[k].status == "unscored" for k in unusable)
        assert len(retried) == len(outage), "only the items without an answer were judged again"

        faults.clear()
        before = len(state.hits)
        third = run_cli(capsys, *evaluate_args(api_base, out, config, "--retry-unscored", "--no-track"))
        assert third.status == 0, third.out
        assert len(judged(state.hits[before:])) == len(unusable)
        assert all(r.status == "scored" for r in journal(out).values())
        assert "scored 12, unscored 0" in third.out and "unscored:" not in third.out


def test_a_tracked_run_where_every_call_fails_is_finished_with_its_unscored_counts(
        tmp_path, monkeypatch, capsys, mlflow_store):
    from tribunal.eval.tracking.mlflow_run import TrackingSettings, mlflow_client

    monkeypatch.setenv(KEY_ENV, SECRET)
    out = tmp_path / "out"
    with loopback_server(synthetic_judge, lambda *_: "500") as (api_base, _state):
        args = evaluate_args(api_base, out, lm_config(tmp_path), "--tracking-uri", mlflow_store)
        outcome = run_cli(capsys, *[a if a != "12" else "4" for a in args])
    assert outcome.status == EXIT_UNSCORED, outcome.err
    assert "Traceback" not in outcome.err and outcome.err.strip() == ""
    assert "4 of 4 items unscored (exit status 3)" in outcome.out
    client = mlflow_client(TrackingSettings(uri=mlflow_store))
    [run] = client.search_runs([client.get_experiment_by_name("tribunal").experiment_id])
    assert run.info.status == "FINISHED"
    metrics = run.data.metrics
    assert metrics["unscored"] == 4 and metrics["scored"] == 0 and metrics["unscored_retryable"] == 4
    assert metrics["unscored.server_error_retries_exhausted"] == 4
    assert metrics["system_scores_written"] == 0
    assert not (out / "metric-scores" / "zh-en" / "M-MAD-src.sys.score").exists()

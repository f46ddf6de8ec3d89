"""``tribunal optimize`` and ``tribunal export`` as a user meets them, offline.

The round trip runs the real command in-process with the scripted engine injected through the
documented test hook (``lm_roles.test_engine_factory``); the WMT23 refusal runs it as a subprocess to
check the exit status and the one-line error.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from tests.support.injected_engine import use_engine
from tribunal.cli import app
from tribunal.errors import UserError
from tribunal.data.program_export import read_export
from tribunal.optimizers.program_loader import load_program

KEY = "sk-planted-optimize-0123456789abcdef"


def test_training_on_wmt23_is_refused_with_exit_2(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "tribunal", "optimize", "--program", "mmad", "--optimizer", "labeled",
         "--train", "wmt23:en-de:0-50", "--dev", "suite:0-8", "--lm", "openai/gpt-4o-mini", "--no-track"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, env={**os.environ, "OPENAI_API_KEY": KEY},
    )
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "WMT23 is test data only" in lines[0] and lines[0].startswith("tribunal: error:")
    assert not (tmp_path / "mlflow.db").exists() and not (tmp_path / "tribunal-out").exists()


def _files_containing(root, needle: bytes) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


def test_optimize_export_load_round_trip(tmp_path, monkeypatch, mlflow_uri):
    from mlflow.tracking import MlflowClient

    monkeypatch.chdir(tmp_path)
    use_engine(monkeypatch, "tests.optimizers.toy_task:engine")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    uri = mlflow_uri
    out = tmp_path / "tuned.json"
    runner = CliRunner()
    result = runner.invoke(app, [
        "optimize", "--program", "test-toy-equiv", "--optimizer", "random-search", "--budget", "1",
        "--train", "suite:0-12", "--dev", "suite:12-20", "--lm", "openai/gpt-4o-mini",
        "--api-base", f"http://127.0.0.1:9/v1?token={KEY}", "--threads", "2", "--seed", "1",
        "--out", str(out), "--tracking-uri", uri,
    ])
    assert result.exit_code == 0, (result.output, result.exception)

    document = read_export(out)
    metadata = document["metadata"]
    assert metadata["optimizer"] == "random-search" and metadata["dev_score"] > metadata["dev_score_untuned"]
    run_id = metadata["run_id"]

    client = MlflowClient(tracking_uri=uri)
    parent = client.get_run(run_id)
    assert parent.data.params["optimizer"] == "random-search" and parent.data.params["lm.task"] == "openai/gpt-4o-mini"
    assert parent.data.params["train_hash"] in metadata["train_data"]
    assert parent.data.metrics["dev_tuned_score"] == pytest.approx(metadata["dev_score"])
    assert "opt:random-search" in parent.data.tags["tribunal.signature"]
    children = client.search_runs([parent.info.experiment_id], f"tags.mlflow.parentRunId = '{run_id}'")
    # random search scores 3 baselines + 1 candidate program on dev, each through dspy.Evaluate
    assert len(children) == 4 and all(c.info.run_name.startswith("trial-") for c in children)
    assert all("score" in c.data.metrics for c in children)
    assert max(c.data.metrics["score"] for c in children) == pytest.approx(metadata["dev_score"])

    [version] = client.search_model_versions("name = 'tribunal-test-toy-equiv'")
    assert version.run_id == run_id and version.source.startswith("models:/m-")  # the logged model: code + the JSON
    assert version.tags["sha256"] == document["sha256"]

    exported = tmp_path / "again.json"
    result = runner.invoke(app, ["export", run_id, "--out", str(exported), "--tracking-uri", uri])
    assert result.exit_code == 0, (result.output, result.exception)
    assert read_export(exported) == document
    program, _ = load_program(exported, expected_name="test-toy-equiv")
    assert program.judge.demos  # the tuned demos came back

    unknown = runner.invoke(app, ["export", "0123abcd", "--out", str(tmp_path / "x.json"), "--tracking-uri", uri])
    assert isinstance(unknown.exception, UserError) and "no run '0123abcd'" in str(unknown.exception)

    assert _files_containing(tmp_path, KEY.encode()) == []  # db, artifacts, exports: no planted key anywhere


"""The team set-up: two worker processes log MT runs to one ``mlflow server`` at the same time."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import mlflow

from tests.eval.mt.helpers import KEY_ENV, SECRET, wmt23
from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tribunal.eval.tracking.mlflow_run import TrackingSettings
from tribunal.eval.tracking.runs_view import runs_by_id, runs_table


def evaluate(server: str, api_base: str, strategy: str, out, env) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "tribunal", "mt", "evaluate", "--data", str(wmt23()), "--lp", "zh-en",
         "--lm", "openai/loopback-judge", "--api-base", api_base, "--api-key-env", KEY_ENV, "--limit", "5",
         "--rated-only", "--demos", "0", "--strategy", strategy, "--out", str(out), "--tracking-uri", server],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def test_two_processes_log_to_one_server_at_once(tmp_path, server_uri):
    env = {**os.environ, KEY_ENV: SECRET, "DSPY_CACHEDIR": str(tmp_path / "cache"), "COLUMNS": "100"}
    with loopback_server(synthetic_judge, latency=0.05) as (api_base, _):
        workers = [evaluate(server_uri, api_base, s, tmp_path / s, env) for s in ("consensus", "deliberation")]
        outputs = [worker.communicate(timeout=600) for worker in workers]
    assert [w.returncode for w in workers] == [0, 0], [err[-2000:] for _, err in outputs]
    run_ids = [re.search(r"MLflow run (\w{32})", out).group(1) for out, _ in outputs]
    runs = runs_by_id(TrackingSettings(uri=server_uri), run_ids)
    assert [r.info.status for r in runs] == ["FINISHED", "FINISHED"]
    assert [r.info.run_name.split(" |")[0] for r in runs] == ["M-MAD consensus r3", "M-MAD-deliberation r3"]
    mlflow.set_tracking_uri(server_uri)
    for run in runs:
        traces = mlflow.search_traces(locations=[run.info.experiment_id], run_id=run.info.run_id, return_type="list")
        assert len(traces) == 5 and all(t.info.request_metadata["mlflow.sourceRun"] == run.info.run_id for t in traces)
        assert [d.dataset.name for d in run.inputs.dataset_inputs] == ["wmt23/zh-en"]
    listed = subprocess.run([sys.executable, "-m", "tribunal", "runs", "list", "--tracking-uri", server_uri],
                            capture_output=True, text=True, timeout=300, env=env)
    assert listed.returncode == 0, listed.stderr
    shown = "".join(listed.stdout.split())
    for value in runs_table(runs).drop(columns=["parent"]).to_numpy().ravel():
        assert "".join(str(value).split()) in shown, value

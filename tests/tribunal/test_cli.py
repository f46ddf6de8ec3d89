"""The command line as a user meets it: subprocesses, exit codes, files, MLflow runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from tests.support.wmt23_table import table_columns


def tribunal(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tribunal", *args], cwd=cwd, capture_output=True, text=True,
        env={**os.environ, **(env or {})}, timeout=300,
    )


HEAVY = ("dspy", "mlflow", "litellm", "sklearn", "torch", "pandas", "scipy", "matplotlib")


def test_help_loads_no_heavy_library(tmp_path):
    """What keeps ``tribunal --help`` fast: the command tree imports no heavy library (timed in
    ``benchmarks/bench_startup.py``, not here: a test must not depend on the machine's load)."""
    probe = ("import sys\nfrom tribunal.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
             f"print('HEAVY', sorted(m for m in {HEAVY!r} if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0 and "demo" in result.stdout, result.stderr
    assert "HEAVY []" in result.stdout, result.stdout[-300:]


def test_meta_eval_writes_tsv_and_logs_a_run(tmp_path, wmt23_root):
    out = tmp_path / "table.tsv"
    result = tribunal("mt", "meta-eval", "--data", str(wmt23_root), "--metric", "COMET", "--metric", "BLEU",
                      "--output", str(out), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    table = pd.read_csv(out, sep="\t")
    assert list(table.columns) == table_columns()
    assert list(table.metric) == ["COMET", "BLEU"]
    assert table.loc[0, "sys_acc"] == pytest.approx(0.899598, abs=1e-6)
    assert "COMET" in result.stdout and "mlflow ui --backend-store-uri sqlite:///mlflow.db" in result.stdout

    from tribunal.eval.tracking.mlflow_run import TrackingSettings, mlflow_client

    client = mlflow_client(TrackingSettings(uri=f"sqlite:///{tmp_path}/mlflow.db"))
    runs = client.search_runs([client.get_experiment_by_name("tribunal").experiment_id])
    assert len(runs) == 1
    run = runs[0]
    assert run.data.metrics["COMET/sys_acc"] == pytest.approx(0.899598, abs=1e-6)
    assert run.data.tags["tribunal.signature"].startswith("task:wmt23-primary|metrics:2|data:wmt23/en-de,he-en,zh-en@")
    assert "meta_eval.tsv" in [a.path for a in client.list_artifacts(run.info.run_id)]


def test_meta_eval_default_data_from_env_and_no_track(tmp_path, wmt23_root):
    result = tribunal("mt", "meta-eval", "--metric", "chrF", "--lp", "en-de", "--no-track", cwd=tmp_path,
                      env={"TRIBUNAL_DATA": str(wmt23_root.parent)})
    assert result.returncode == 0, result.stderr
    assert "chrF" in result.stdout
    assert not (tmp_path / "mlflow.db").exists()


def test_missing_metric_is_reported_not_crashed(tmp_path, tiny_mtme):
    (tiny_mtme / "metric-scores" / "en-de" / "M-refA.sys.score").write_text("A\t0.1\n")
    result = tribunal("mt", "meta-eval", "--data", str(tiny_mtme), "--no-track", cwd=tmp_path)
    assert result.returncode == 0
    assert "not scored: M en-de: no system score for B, C" in " ".join(result.stderr.split())


def test_bad_input_is_one_line_exit_2_nothing_written(tmp_path, tiny_mtme):
    seg = tiny_mtme / "metric-scores" / "en-de" / "M-refA.seg.score"
    seg.write_text(seg.read_text().replace("0.4", "zero point four"))
    out = tmp_path / "t.tsv"
    result = tribunal("mt", "meta-eval", "--data", str(tiny_mtme), "--output", str(out), cwd=tmp_path)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tribunal: error: ")
    assert f"{seg}:5: score 'zero point four' is not a number or None" in lines[0]
    assert "Traceback" not in result.stderr
    assert not out.exists()
    assert not (tmp_path / "mlflow.db").exists()


def test_no_data_anywhere_is_a_clear_error(tmp_path):
    env = {"TRIBUNAL_DATA": "", "HOME": str(tmp_path)}
    result = tribunal("mt", "meta-eval", cwd=tmp_path, env=env)
    assert result.returncode == 2
    assert "no data: pass --data DIR, set TRIBUNAL_DATA" in result.stderr


def test_compare_prints_significance(tmp_path, wmt23_root):
    result = tribunal("mt", "compare", "COMET", "BLEU", "--data", str(wmt23_root), "--lp", "en-de",
                      "--samples", "200", "--no-track", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "sys accuracy (pooled)" in result.stdout and "en-de seg acc-t" in result.stdout
    unknown = tribunal("mt", "compare", "COMET", "NOPE", "--data", str(wmt23_root), "--no-track", cwd=tmp_path)
    assert unknown.returncode == 2 and "no scores for metric 'NOPE'" in unknown.stderr


def test_demo_runs_offline_and_says_where_to_look(tmp_path, wmt23_root):
    result = tribunal("demo", "--no-lm", cwd=tmp_path, env={"TRIBUNAL_DATA": str(wmt23_root.parent)})
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "tribunal-out" / "demo" / "wmt23_meta_eval.tsv").is_file()
    assert "mlflow ui --backend-store-uri" in result.stdout
    assert "`tribunal local install`" in " ".join(result.stdout.split())  # not eaten as Rich markup


def test_meta_eval_reads_a_judges_score_folder(tmp_path, tiny_mtme):
    judge = tmp_path / "judge-out" / "metric-scores"
    (judge / "en-de").mkdir(parents=True)
    (judge / "en-de" / "J-src.seg.score").write_text("A\t-1\nA\t-5\nA\t0\nB\t0\nB\t-2\nB\t-1\nC\t-3\nC\t-1\nC\t0\n")
    (judge / "en-de" / "J-src.sys.score").write_text("A\t-3\nB\t-1\nC\t-1.3\n")
    out = tmp_path / "t.tsv"
    result = tribunal("mt", "meta-eval", "--data", str(tiny_mtme), "--scores", str(judge), "--output", str(out),
                      "--no-track", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    table = pd.read_csv(out, sep="\t").set_index("metric")
    assert set(table.index) == {"J", "M"}
    assert table.loc["J", "en-de_seg_pearson"] == pytest.approx(1.0)  # J repeats the gold scores


def test_the_console_script_ends_with_a_frozen_heap_and_an_in_process_call_does_not(capsys):
    import gc

    from tribunal.cli import main

    before = gc.get_freeze_count()
    with pytest.raises(SystemExit):
        main(["--help"])
    assert gc.get_freeze_count() == before  # a test's heap is never frozen
    code = ("import atexit, gc, sys; atexit.register(lambda: print('frozen at exit', gc.get_freeze_count() > 0)); "
            "sys.argv = ['tribunal', 'data', 'cache', '--help']; from tribunal.cli import main; main()")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "frozen at exit True" in done.stdout and "clear" in done.stdout  # the command ran, then the heap froze

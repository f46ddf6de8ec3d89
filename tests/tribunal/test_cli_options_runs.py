"""Options of ``optimize``, ``demo``, ``mt meta-eval/compare``, ``runs`` and ``data fetch``, checked by effect."""

from __future__ import annotations

import io
import json
import re
import tarfile
from collections import Counter

import pytest

from tests.support.injected_engine import use_engine
from tests.support.cli import assert_one_line_error, run_cli
from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge

KEY_ENV = "TRIBUNAL_OPTIONS_TEST_KEY"


def top_level_runs(uri: str, experiment: str) -> list:
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=uri)
    found = client.get_experiment_by_name(experiment)
    runs = client.search_runs([found.experiment_id]) if found else []
    return [r for r in runs if "mlflow.parentRunId" not in r.data.tags]


@pytest.fixture
def role_engines(monkeypatch):
    from tests.support import role_engines

    role_engines.BUILT.clear()
    use_engine(monkeypatch, "tests.support.role_engines:engine")
    return role_engines.BUILT


def optimize_args(tmp_path, optimizer, *extra):
    return ["optimize", "--program", "equiv-llm", "--optimizer", optimizer, "--budget", "2", "--train", "suite:0-40",
            "--dev", "suite:40-60", "--lm", "openai/task", "--threads", "2", "--out", tmp_path / f"{optimizer}.json",
            *extra]


def test_optimize_teacher_and_prompt_lms_run_their_roles(tmp_path, capsys, monkeypatch, role_engines):
    monkeypatch.chdir(tmp_path)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    bootstrap = run_cli(capsys, *optimize_args(tmp_path, "bootstrap", "--teacher-lm", "openai/teacher",
                                               "--tracking-uri", uri, "--experiment", "tuning"))
    assert bootstrap.status == 0, bootstrap.err
    teacher_model, teacher = role_engines["teacher"]
    assert teacher_model == "openai/teacher" and teacher.calls["task"] > 0  # the teacher bootstrapped the demos
    assert "|teacher:openai/teacher|" in bootstrap.out
    [run] = top_level_runs(uri, "tuning")
    assert run.data.params["lm.teacher"] == "openai/teacher" and run.info.run_id in bootstrap.out

    role_engines.clear()
    mipro = run_cli(capsys, *optimize_args(tmp_path, "mipro", "--prompt-lm", "openai/prompter", "--no-track"))
    assert mipro.status == 0, mipro.err
    prompt_model, prompter = role_engines["prompt"]
    assert prompt_model == "openai/prompter" and prompter.calls["internal"] > 0  # it proposed the instructions
    assert "|prompt:openai/prompter|" in mipro.out and "teacher" not in role_engines


def test_optimize_cache_and_key_options_reach_the_lm(tmp_path, capsys, monkeypatch):
    """Over the loopback server: --api-key-env must name a set variable; --cache answers a rerun for free."""
    from tests.support.equiv_fakes import equiv_loopback_server

    monkeypatch.chdir(tmp_path)
    args = ["optimize", "--program", "equiv-llm", "--optimizer", "labeled", "--budget", "2", "--train", "suite:0-8",
            "--dev", "suite:8-16", "--lm", "openai/optimize-options", "--api-key-env", KEY_ENV, "--threads", "2",
            "--no-track"]
    with equiv_loopback_server(lambda a, b: True) as (api_base, state):
        monkeypatch.delenv(KEY_ENV, raising=False)
        assert_one_line_error(run_cli(capsys, *args, "--api-base", api_base, "--out", tmp_path / "a.json"),
                              f"environment variable {KEY_ENV} (the API key) is not set")
        monkeypatch.setenv(KEY_ENV, "sk-options-test")
        fresh = run_cli(capsys, *args, "--api-base", api_base, "--no-cache", "--out", tmp_path / "b.json")
        assert fresh.status == 0, fresh.err
        paid = len(state.hits)
        assert paid > 0
        for name in ("c", "d"):  # --cache (default): the first run fills the cache, the second costs nothing
            assert run_cli(capsys, *args, "--api-base", api_base, "--out", tmp_path / f"{name}.json").status == 0
        assert len(state.hits) == 2 * paid


def test_demo_options(tmp_path, capsys, monkeypatch, wmt23_root):
    import tribunal.eval.equiv.rules.embedding as embedding
    import tribunal.eval.meta.meta_eval_job as meta_eval_job

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TRIBUNAL_DATA", str(wmt23_root.parent))
    monkeypatch.setenv(KEY_ENV, "sk-options-test")
    monkeypatch.setattr(embedding, "local_minilm_available", lambda: False)  # TF-IDF alone keeps it quick
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    with loopback_server(synthetic_judge) as (api_base, state):
        monkeypatch.setenv("TRIBUNAL_LM", "openai/demo-options")  # the variable stands for --lm
        first = run_cli(capsys, "demo", "--api-base", api_base, "--api-key-env", KEY_ENV, "--out", tmp_path / "d1",
                        "--tracking-uri", uri, "--experiment", "demo-options")
        assert first.status == 0, first.err
        paid = len(state.hits)
        assert paid > 0 and "M-MAD on 5 WMT23 zh-en items with openai/demo-options" in first.out
        assert len(top_level_runs(uri, "demo-options")) >= 3  # meta-evaluation, audit, M-MAD (and the prompts)
        assert "MLflow experiment 'demo-options' holds: " in first.out
        assert (tmp_path / "d1" / "wmt23_meta_eval.tsv").is_file() and (tmp_path / "d1" / "mmad").is_dir()

        computed = meta_eval_job.run_meta_eval
        monkeypatch.setattr(meta_eval_job, "run_meta_eval", lambda data, *a, **k: computed(
            data, ["BLEU"], ["zh-en"], *a[2:], **k))  # the rest of the demo is what is measured here
        again = run_cli(capsys, "demo", "--lm", "openai/demo-options", "--api-base", api_base,
                        "--api-key-env", KEY_ENV, "--out", tmp_path / "d2", "--no-track")
        assert again.status == 0 and len(state.hits) == paid  # --cache (default): answered from the cache
        fresh = run_cli(capsys, "demo", "--lm", "openai/demo-options", "--api-base", api_base,
                        "--api-key-env", KEY_ENV, "--no-cache", "--out", tmp_path / "d3", "--no-track")
        assert fresh.status == 0
        # --no-cache: every request of the first run reaches the server again, and so do the repeats
        # that the first run's own cache answered (the tuned judge asking what the untuned one asked).
        sent = lambda hits: Counter(json.dumps(h, sort_keys=True, default=str) for h in hits)  # noqa: E731
        assert not sent(state.hits[:paid]) - sent(state.hits[paid:]) and len(state.hits) >= 2 * paid
    assert "MLflow experiment" not in fresh.out  # --no-track: no store summary
    monkeypatch.delenv("TRIBUNAL_LM")
    offline = run_cli(capsys, "demo", "--no-lm", "--out", tmp_path / "d4", "--no-track")
    assert "Set TRIBUNAL_LM" in offline.out and "M-MAD on 5" not in offline.out


def test_meta_eval_and_compare_seed_and_experiment(tmp_path, capsys, tiny_mtme):
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    for seed in ("7", "8"):
        outcome = run_cli(capsys, "mt", "meta-eval", "--data", tiny_mtme, "--significance", "20", "--seed", seed,
                          "--tracking-uri", uri, "--experiment", "meta-options")
        assert outcome.status == 0 and f"|significance:20|seed:{seed}|" in outcome.out
    assert sorted(r.data.params["seed"] for r in top_level_runs(uri, "meta-options")) == ["7", "8"]
    (tiny_mtme / "metric-scores" / "en-de" / "N-refA.seg.score").write_text(
        "A\t0.3\nA\t0.2\nA\t0.1\nB\t0.8\nB\t0.5\nB\t0.7\nC\t0.2\nC\t0.9\nC\t0.6\n")
    (tiny_mtme / "metric-scores" / "en-de" / "N-refA.sys.score").write_text("A\t0.2\nB\t0.67\nC\t0.57\n")
    compared = run_cli(capsys, "mt", "compare", "M", "N", "--data", tiny_mtme, "--samples", "50", "--seed", "3",
                       "--tracking-uri", uri, "--experiment", "compare-options")
    assert compared.status == 0, compared.err
    [run] = top_level_runs(uri, "compare-options")
    assert run.data.params["seed"] == "3" and run.info.run_id in compared.out


def test_runs_list_and_compare_options(tmp_path, capsys, tiny_mtme, monkeypatch):
    monkeypatch.chdir(tmp_path)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    for experiment in ("first", "first", "second"):
        assert run_cli(capsys, "mt", "meta-eval", "--data", tiny_mtme, "--tracking-uri", uri,
                       "--experiment", experiment).status == 0
    listed = run_cli(capsys, "runs", "list", "--experiment", "first", "--max", "1", "--tracking-uri", uri)
    assert listed.status == 0 and listed.out.startswith("1 run(s), newest first")
    both = run_cli(capsys, "runs", "list", "--experiment", "first", "--tracking-uri", uri)
    assert both.out.startswith("2 run(s), newest first")
    compared = run_cli(capsys, "runs", "compare", "--experiment", "first", "--cost", "M/en-de_sys_pearson",
                       "--quality", "M/avg_corr", "--out", tmp_path / "plots", "--tracking-uri", uri)
    assert compared.status == 0, compared.err
    assert (tmp_path / "plots" / "cost_vs_quality.png").is_file()
    other = run_cli(capsys, "runs", "compare", "--experiment", "first", "--cost", "no_such_metric",
                    "--out", tmp_path / "plots2", "--tracking-uri", uri, "--no-track")
    assert "no cost-vs-quality plot: the runs share no no_such_metric" in other.out
    assert not (tmp_path / "plots2" / "cost_vs_quality.png").exists()


def archive(path, text: bytes):
    with tarfile.open(path, "w:gz") as out:
        info = tarfile.TarInfo("mt-metrics-eval-v2/wmt23/sources/en-de.txt")
        info.size = len(text)
        out.addfile(info, io.BytesIO(text))
    return path.as_uri()


def test_data_fetch_replaces_a_copy_only_with_force(tmp_path, capsys):
    dest = tmp_path / "data"
    first = run_cli(capsys, "data", "fetch", "wmt23", "--dest", dest, "--url", archive(tmp_path / "a.tgz", b"old\n"))
    assert first.status == 0 and first.out == f"wmt23 unpacked to {dest / 'wmt23'}\n" and first.err == ""
    url = archive(tmp_path / "b.tgz", b"new\n")
    assert_one_line_error(run_cli(capsys, "data", "fetch", "wmt23", "--dest", dest, "--url", url),
                          f"{dest / 'wmt23'}: already exists (use --force to replace it)")
    assert (dest / "wmt23" / "sources" / "en-de.txt").read_text() == "old\n"
    forced = run_cli(capsys, "data", "fetch", "wmt23", "--dest", dest, "--url", url, "--force")
    assert forced.status == 0 and (dest / "wmt23" / "sources" / "en-de.txt").read_text() == "new\n"


def test_data_check_reports_each_pair(capsys, tiny_mtme):
    outcome = run_cli(capsys, "data", "check", "--data", tiny_mtme)
    assert outcome.status == 0 and outcome.err == ""
    assert outcome.out == "en-de: 3 segments, 4 outputs, gold mqm, 0 rating files, 1 metric files: ok\n"
    assert re.search(r"Example", run_cli(capsys, "data", "check", "--help").out)

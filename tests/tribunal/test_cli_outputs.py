"""Outputs the machine refuses: read-only folders, a full disk, a read-only tracking store.

Each command checks where its results go before it works (a read-only ``--out`` costs no LM call),
and a failure late in a run (a disk filling up) is one line naming the file, with nothing
half-written left behind.
"""

from __future__ import annotations

import errno
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.support.cli import assert_one_line_error, run_cli
from tests.support.mounts import full_disk, read_only_folder


def commands(tiny: Path, target: Path) -> dict[str, list]:
    """Every command that writes results, pointed at ``target`` (a file or a folder under it)."""
    return {
        "meta-eval": ["mt", "meta-eval", "--data", tiny, "--output", target / "table.tsv", "--no-track"],
        "evaluate": ["mt", "evaluate", "--data", tiny, "--lp", "en-de", "--lm", "openai/unreachable",
                     "--api-base", "http://127.0.0.1:9/v1", "--demos", "0", "--out", target / "mt", "--no-track"],
        "export": ["export", "0123456789abcdef", "--out", target / "program.json"],
        "audit": ["equiv", "audit", "--rules", "tfidf", "--out", target / "audit", "--no-track"],
        "optimize": ["optimize", "--program", "equiv-llm", "--optimizer", "labeled", "--train", "suite:0-4",
                     "--dev", "suite:4-8", "--lm", "openai/unreachable", "--out", target / "tuned.json", "--no-track"],
    }


OPTION = {"meta-eval": "--output", "evaluate": "--out", "export": "--out", "audit": "--out", "optimize": "--out"}


@pytest.mark.parametrize("command", list(OPTION))
def test_a_read_only_output_folder_is_one_line_before_any_work(command, tmp_path, tiny_mtme, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with read_only_folder(tmp_path / "ro") as ro:
        outcome = run_cli(capsys, *commands(tiny_mtme, ro)[command])
        assert_one_line_error(outcome, f"{OPTION[command]} {ro}/", f"cannot write in {ro}: Read-only file system")
        assert list(ro.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ro", "tiny"], "no store, no tribunal-out"


@pytest.mark.parametrize("command", list(OPTION))
def test_an_injected_read_only_error_is_reported_the_same_way(command, tmp_path, tiny_mtme, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    target = tmp_path / "target"
    target.mkdir()
    real = tempfile.mkstemp

    def refuse(*args, dir=None, **kwargs):  # noqa: A002  (tempfile's own keyword)
        if dir is not None and Path(dir).resolve().is_relative_to(target):
            raise OSError(errno.EROFS, "Read-only file system", str(dir))
        return real(*args, dir=dir, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    outcome = run_cli(capsys, *commands(tiny_mtme, target)[command])
    assert_one_line_error(outcome, f"{OPTION[command]} {target}/", "Read-only file system")
    assert list(target.iterdir()) == []


def test_a_full_disk_is_one_line_naming_the_file_and_leaves_no_partial_file(tmp_path, tiny_mtme, capsys):
    with full_disk(tmp_path / "disk") as disk:
        outcome = run_cli(capsys, "mt", "meta-eval", "--data", tiny_mtme, "--output", disk / "table.tsv",
                          "--no-track")
        assert_one_line_error(outcome, f"{disk / 'table.tsv'}: No space left on device (disk full")
        assert sorted(p.name for p in disk.iterdir()) == [".filler"]


@pytest.fixture(scope="module")
def store_template(tmp_path_factory) -> Path:
    from mlflow.tracking import MlflowClient

    path = tmp_path_factory.mktemp("store") / "mlflow.db"
    MlflowClient(tracking_uri=f"sqlite:///{path}").search_experiments()
    return path


def test_a_read_only_tracking_store_is_one_line(tmp_path, tiny_mtme, capsys, store_template):
    out = tmp_path / "table.tsv"
    with read_only_folder(tmp_path / "ro", {"mlflow.db": store_template.read_bytes()}) as ro:
        uri = f"sqlite:///{ro / 'mlflow.db'}"
        meta = run_cli(capsys, "mt", "meta-eval", "--data", tiny_mtme, "--output", out, "--tracking-uri", uri)
        assert_one_line_error(meta, f"MLflow tracking store {uri}: attempt to write a readonly database",
                              "--no-track skips tracking")
        assert not out.exists(), "no table from a run that was not logged"
        # A judge run checks the store before the first LM call.
        judge = run_cli(capsys, "mt", "evaluate", "--data", tiny_mtme, "--lp", "en-de", "--lm", "openai/unreachable",
                        "--api-base", "http://127.0.0.1:9/v1", "--demos", "0", "--out", tmp_path / "mt",
                        "--tracking-uri", uri)
        assert_one_line_error(judge, f"--tracking-uri {ro / 'mlflow.db'}: cannot write in {ro}")
        assert not (tmp_path / "mt").exists()


def test_a_bad_tracking_uri_stops_a_judge_run_before_it_judges(tmp_path, tiny_mtme, capsys):
    outcome = run_cli(capsys, "mt", "evaluate", "--data", tiny_mtme, "--lp", "en-de", "--lm", "openai/unreachable",
                      "--api-base", "http://127.0.0.1:9/v1", "--demos", "0", "--out", tmp_path / "mt",
                      "--tracking-uri", "bogus://x")
    assert_one_line_error(outcome, "MLflow tracking store bogus://x: unsupported URI scheme")
    assert not (tmp_path / "mt").exists()


def test_a_store_copy_keeps_working(tmp_path, store_template):
    """The template is a usable store (guards the read-only test against a broken template)."""
    from tribunal.eval.tracking.mlflow_run import TrackingSettings, tracked_run

    shutil.copyfile(store_template, tmp_path / "mlflow.db")
    with tracked_run(TrackingSettings(uri=f"sqlite:///{tmp_path / 'mlflow.db'}"), "probe") as run:
        assert run.run_id

"""The one place that turns expected failures into one line and a documented exit status."""

from __future__ import annotations

import errno
import json

import pytest

from tests.support.cli import assert_one_line_error, run_cli
from tribunal.cli.errors import describe
from tribunal.errors import EXIT_ERROR, EXIT_INTERRUPTED, Interrupted, UserError

SECRET = "sk-cli-errors-0123456789abcdef"


def test_describe_covers_what_a_user_can_cause_and_leaves_bugs_alone():
    assert describe(UserError("x.tsv:3: bad")) == ("x.tsv:3: bad", EXIT_ERROR)
    assert describe(OSError(errno.EROFS, "Read-only file system", "/ro/t.tsv")) == (
        "/ro/t.tsv: Read-only file system", EXIT_ERROR)
    message, status = describe(OSError(errno.ENOSPC, "No space left on device", "/full/x"))
    assert message.startswith("/full/x: No space left on device (disk full") and status == EXIT_ERROR
    assert describe(KeyboardInterrupt()) == ("interrupted", EXIT_INTERRUPTED)
    assert describe(Interrupted("interrupted: 3 items journaled; rerun the same command to resume"))[1] == 130
    assert describe(KeyError("bug")) is None and describe(AttributeError("bug")) is None


def test_store_errors_are_one_line_without_sql():
    from mlflow.exceptions import MlflowException

    err = MlflowException("(raised as a result of Query-invoked autoflush; consider ...)\n"
                          "(sqlite3.OperationalError) attempt to write a readonly database\n[SQL: INSERT INTO runs ...]")
    message, status = describe(err)
    assert "attempt to write a readonly database" in message and "SQL" not in message and status == EXIT_ERROR


def test_usage_errors_are_one_line_with_a_pointer_to_help(capsys):
    outcome = run_cli(capsys, "mt", "meta-eval", "--bogus")
    assert_one_line_error(outcome, "No such option: --bogus", "tribunal mt meta-eval --help")


def test_optimize_threads_zero_is_refused_before_anything_runs(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    outcome = run_cli(capsys, "optimize", "--program", "equiv-llm", "--optimizer", "labeled", "--train",
                      "suite:0-4", "--dev", "suite:4-8", "--lm", "openai/x", "--threads", "0", "--no-track")
    assert_one_line_error(outcome, "--threads", "greater than or equal to 1")
    assert list(tmp_path.iterdir()) == []


def test_a_config_that_is_a_json_list_names_the_file(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "run.json"
    config.write_text("[1, 2]")
    outcome = run_cli(capsys, "mt", "evaluate", "--lp", "zh-en", "--lm", "openai/x", "--config", config, "--no-track")
    assert_one_line_error(outcome, f"{config}: a config file holds one object of settings", "not a list")
    broken = tmp_path / "broken.json"
    broken.write_text('{"lp": ')
    assert_one_line_error(run_cli(capsys, "mt", "evaluate", "--config", broken, "--no-track"),
                          f"{broken}: not valid JSON")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.json", "run.json"]


def test_a_bad_tracking_uri_is_one_line(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    outcome = run_cli(capsys, "runs", "list", "--tracking-uri", "bogus://x")
    assert_one_line_error(outcome, "MLflow tracking store bogus://x: unsupported URI scheme", "--no-track")


def test_export_out_naming_a_folder_is_refused_before_the_store_is_read(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder").mkdir()
    outcome = run_cli(capsys, "export", "0123abcd", "--out", tmp_path / "folder")
    assert_one_line_error(outcome, f"--out {tmp_path / 'folder'}: is a folder; name a file")
    assert not (tmp_path / "mlflow.db").exists() and list((tmp_path / "folder").iterdir()) == []


def test_a_resealed_export_without_program_or_state_is_refused(capsys, tmp_path):
    from tribunal.data.program_export import _seal, export_document, read_export, write_export
    from tribunal.programs.equiv_judge import EquivalenceJudge

    document = export_document(EquivalenceJudge(), "equiv-llm", {}, {})
    for missing in ("program", "state"):
        broken = {k: v for k, v in document.items() if k != missing}
        broken["sha256"] = _seal(broken)
        path = tmp_path / f"no-{missing}.json"
        path.write_text(json.dumps(broken))
        with pytest.raises(UserError, match=f"not a complete tribunal export: {missing}: Field required"):
            read_export(path)
        outcome = run_cli(capsys, "equiv", "audit", "--rules", "llm", "--lm", "openai/x", "--program", path,
                          "--out", tmp_path / "audit", "--no-track")
        assert_one_line_error(outcome, f"{path}: not a complete tribunal export: {missing}")
    assert read_export(write_export(document, tmp_path / "ok.json"))["program"]["name"] == "equiv-llm"


def test_set_never_echoes_a_credential(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    base = ["optimize", "--program", "equiv-llm", "--optimizer", "labeled", "--train", "suite:0-4", "--dev",
            "suite:4-8", "--lm", "openai/x", "--no-track"]
    pasted = run_cli(capsys, *base, "--set", SECRET)  # the key itself, pasted where KEY=VALUE belongs
    line = assert_one_line_error(pasted, "--set", "expected KEY=VALUE")
    assert SECRET not in line and "sk-cli" not in line
    literal = "sk-literal-not-in-env-987654321"
    named = run_cli(capsys, *base, "--set", f"api_key={literal}")
    line = assert_one_line_error(named, "--set api_key: credentials come from the environment")
    assert literal not in line
    as_value = run_cli(capsys, *base, "--set", f"rubric={SECRET}")  # refused by the program, value redacted
    line = assert_one_line_error(as_value, "rubric=***")
    assert SECRET not in line
    assert not (tmp_path / "tribunal-out").exists()


def test_ctrl_c_in_any_command_is_status_130_with_a_word(capsys, tiny_mtme, monkeypatch):
    import tribunal.eval.meta.meta_eval_job as job

    def stopped(*_args, **_kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(job, "run_meta_eval", stopped)
    outcome = run_cli(capsys, "mt", "meta-eval", "--data", tiny_mtme, "--no-track")
    assert outcome.status == EXIT_INTERRUPTED and outcome.err_lines == ["tribunal: interrupted"]

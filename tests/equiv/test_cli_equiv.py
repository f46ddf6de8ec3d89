"""The ``tribunal equiv`` / ``hyp`` commands: fast help, user errors, an offline TF-IDF audit."""

import subprocess
import sys

from typer.testing import CliRunner

from tribunal.cli import app

runner = CliRunner()


def test_top_level_help_lists_equiv_and_hyp_without_heavy_imports():
    done = subprocess.run([sys.executable, "-c", "import sys; sys.argv=['tribunal','--help']; "
                           "from tribunal.cli import main; main()"], capture_output=True, text=True)
    assert "equiv" in done.stdout and "hyp" in done.stdout
    heavy = subprocess.run([sys.executable, "-c", "import sys, tribunal.cli; "
                            "print(sorted(m for m in ('dspy','sklearn','mlflow','torch') if m in sys.modules))"],
                           capture_output=True, text=True)
    assert heavy.stdout.strip() == "[]"


def test_llm_rule_without_lm_is_a_user_error():
    result = runner.invoke(app, ["equiv", "audit", "--rules", "tfidf,llm", "--no-track"])
    assert result.exit_code != 0 and "needs --lm" in str(result.exception)


def test_unknown_rule_and_rubric_are_user_errors():
    assert "unknown" in str(runner.invoke(app, ["equiv", "audit", "--rules", "bm25", "--no-track"]).exception)
    assert "--rubric" in str(runner.invoke(app, ["equiv", "audit", "--rubric", "half", "--no-track"]).exception)


def test_tfidf_audit_from_the_command_line(tmp_path):
    result = runner.invoke(app, ["equiv", "audit", "--rules", "tfidf", "--repeats", "1", "--no-track",
                                 "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "first-step-swapped" in result.output and "tfidf" in result.output
    assert (tmp_path / "audit_table.tsv").is_file()


def test_hyp_divergence_on_a_missing_directory_is_a_user_error(tmp_path):
    result = runner.invoke(app, ["hyp", "divergence", str(tmp_path / "nope"), "--no-track"])
    assert result.exit_code != 0 and "no runs/" in str(result.exception)

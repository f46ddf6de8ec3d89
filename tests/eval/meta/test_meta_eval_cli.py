"""``tribunal mt meta-eval`` and ``data check`` on bad or partial input: an error (exit 2, one line,
nothing written) or an honest "not scored", never a smaller or silently different table.

The command line runs in-process through its real entry point (``tribunal.cli.main``: the same
error handling and exit status as the installed script) to keep these many cases fast;
``tests/tribunal/test_cli.py`` runs the script itself.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import write


@pytest.fixture
def tribunal(capsys, monkeypatch):
    """Run ``tribunal ARGS`` in-process; returns a CompletedProcess-like result."""
    from tribunal.cli import main

    def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
        monkeypatch.chdir(cwd)
        monkeypatch.setattr(sys, "argv", ["tribunal", *args])
        capsys.readouterr()
        with pytest.raises(SystemExit) as stop:
            main()
        out, err = capsys.readouterr()
        code = stop.value.code if isinstance(stop.value.code, int) else (0 if stop.value.code is None else 1)
        return subprocess.CompletedProcess(args, code, out, err)

    return run


def assert_one_line_error(result: subprocess.CompletedProcess, fragment: str, cwd: Path, output: Path | None = None):
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tribunal: error: "), result.stderr
    assert fragment in lines[0], lines[0]
    assert "Traceback" not in result.stderr
    if output is not None:
        assert not output.exists()
    assert not (cwd / "mlflow.db").exists()


@pytest.fixture
def meta_eval(tribunal):
    def run(root: Path, tmp_path: Path, *extra: str) -> tuple[subprocess.CompletedProcess, Path]:
        out = tmp_path / "table.tsv"
        return tribunal("mt", "meta-eval", "--data", str(root), "--output", str(out), *extra, cwd=tmp_path), out
    return run


@pytest.mark.parametrize("file, text", [
    ("metric-scores/en-de/M-refA.seg.score", "inf"), ("metric-scores/en-de/M-refA.seg.score", "-inf"),
    ("metric-scores/en-de/M-refA.seg.score", "1e400"), ("human-scores/en-de.mqm.seg.score", "inf"),
    ("metric-scores/en-de/M-refA.sys.score", "-inf"), ("human-scores/en-de.mqm.sys.score", "1e400"),
])
def test_non_finite_scores_are_refused_like_nan(tiny_mtme, tmp_path, file, text, tribunal, meta_eval):
    path = tiny_mtme / file
    lines = path.read_text().splitlines()
    lines[1] = lines[1].split("\t")[0] + "\t" + text
    path.write_text("\n".join(lines) + "\n")
    fragment = f"{path}:2: score '{text}' is not finite; write None for an unrated cell"
    result, out = meta_eval(tiny_mtme, tmp_path)
    assert_one_line_error(result, fragment, tmp_path, out)
    check = tribunal("data", "check", "--data", str(tiny_mtme), cwd=tmp_path)
    assert_one_line_error(check, fragment, tmp_path)


@pytest.mark.parametrize("level, what", [("sys", "system"), ("seg", "segment")])
def test_empty_gold_file_is_one_line_error(tiny_mtme, tmp_path, level, what, tribunal, meta_eval):
    path = tiny_mtme / "human-scores" / f"en-de.mqm.{level}.score"
    path.write_text("")
    fragment = f"{path}: no {what} has a gold score (empty file or all None)"
    result, out = meta_eval(tiny_mtme, tmp_path)
    assert_one_line_error(result, fragment, tmp_path, out)
    assert_one_line_error(tribunal("data", "check", "--data", str(tiny_mtme), cwd=tmp_path), fragment, tmp_path)


def test_missing_source_of_a_scored_pair_is_an_error(tiny_mtme, tmp_path, meta_eval):
    (tiny_mtme / "sources" / "en-de.txt").unlink()
    result, out = meta_eval(tiny_mtme, tmp_path)
    assert_one_line_error(result, "sources/en-de.txt: missing: en-de has scores but no source file", tmp_path, out)


def test_system_missing_from_gold_sys_score_is_an_error(tiny_mtme, tmp_path, tribunal, meta_eval):
    path = tiny_mtme / "human-scores" / "en-de.mqm.sys.score"
    path.write_text("A\t-3.0\nB\t-1.0\nrefA\t0\n")
    result, out = meta_eval(tiny_mtme, tmp_path)
    assert_one_line_error(result, f"{path}: no gold score for C, which has gold segment scores", tmp_path, out)
    assert_one_line_error(tribunal("data", "check", "--data", str(tiny_mtme), cwd=tmp_path),
                          "no gold score for C", tmp_path)


@pytest.mark.parametrize("args, fragment", [
    (("--scores", "/nonexistent"), "--scores /nonexistent: no such folder"),
    (("--metric", "NOPE"), "--metric NOPE: no NOPE-refA or NOPE-src score files in en-de"),
    (("--lp", "NOPE"), "no language pair NOPE (have en-de)"),
    (("--protocol", "wmt99"), "unknown protocol 'wmt99' (choose from wmt23, wmt24, wmt25)"),
])
def test_missing_targets_are_errors_not_smaller_tables(tiny_mtme, tmp_path, args, fragment, meta_eval):
    result, out = meta_eval(tiny_mtme, tmp_path, *args)
    assert_one_line_error(result, fragment, tmp_path, out)


def test_scores_folder_without_any_pair_is_an_error(tiny_mtme, tmp_path, meta_eval):
    empty = tmp_path / "judge-out"
    empty.mkdir()
    result, out = meta_eval(tiny_mtme, tmp_path, "--scores", str(empty))
    assert_one_line_error(result, f"--scores {empty}: holds no en-de folder", tmp_path, out)


def judge_folder(tmp_path: Path, seg: str, sys_text: str | None) -> Path:
    judge = tmp_path / "judge" / "metric-scores"
    write(judge / "en-de" / "J-src.seg.score", seg)
    if sys_text is not None:
        write(judge / "en-de" / "J-src.sys.score", sys_text)
    return judge


# J repeats the gold on the cells it scores; gold has 8 rated cells (A's third segment is unrated).
FULL_SEG = "A\t-1\nA\t-5\nA\tNone\nB\t0\nB\t-2\nB\t-1\nC\t-3\nC\t-1\nC\t0\n"
PARTIAL_SEG = "A\t-1\nA\t-5\nA\tNone\nB\t0\nB\tNone\nB\t-1\nC\t-3\nC\t-1\nC\tNone\n"


def test_judge_without_sys_score_is_not_scored_at_system_level(tiny_mtme, tmp_path, meta_eval):
    judge = judge_folder(tmp_path, FULL_SEG, None)
    result, out = meta_eval(tiny_mtme, tmp_path, "--scores", str(judge), "--no-track")
    assert result.returncode == 0, result.stderr
    assert "not scored: J en-de: no .sys.score file" in " ".join(result.stderr.split())
    row = pd.read_csv(out, sep="\t").set_index("metric").loc["J"]
    assert pd.isna(row.sys_acc) and pd.isna(row["en-de_sys_pearson"]) and pd.isna(row.avg_corr)
    assert row["en-de_seg_pearson"] == pytest.approx(1.0)
    assert "coverage" not in pd.read_csv(out, sep="\t").columns


def test_judge_covering_part_of_the_rated_cells(tiny_mtme, tmp_path, meta_eval):
    judge = judge_folder(tmp_path, PARTIAL_SEG, "A\t-3\nB\t-0.5\nC\t-2\n")
    result, out = meta_eval(tiny_mtme, tmp_path, "--scores", str(judge), "--no-track")
    assert result.returncode == 0, result.stderr
    assert "not scored: J en-de: 2 rated segment(s) without a metric score" in " ".join(result.stderr.split())
    row = pd.read_csv(out, sep="\t").set_index("metric").loc["J"]
    assert row[["en-de_seg_pearson", "en-de_seg_acc_t", "avg_corr"]].isna().all()

    limited, out = meta_eval(tiny_mtme, tmp_path, "--scores", str(judge), "--no-track", "--coverage-limited")
    assert limited.returncode == 0, limited.stderr
    table = pd.read_csv(out, sep="\t").set_index("metric")
    assert table.columns[-1] == "coverage"
    assert table.loc["J", "coverage"] == pytest.approx(6 / 8) and table.loc["M", "coverage"] == 1.0
    assert table.loc["J", "en-de_seg_pearson"] == pytest.approx(1.0) and table.loc["J", "sys_acc"] == 1.0
    assert "COVERAGE-LIMITED" in " ".join(limited.stdout.split())
    assert "J en-de: coverage-limited: scored on 6 of 8 rated cells" in " ".join(limited.stderr.split())


def test_lp_subset_has_only_its_columns(wmt23_root, tmp_path, meta_eval):
    result, out = meta_eval(wmt23_root, tmp_path, "--lp", "zh-en", "--metric", "chrF", "--no-track")
    assert result.returncode == 0, result.stderr
    assert pd.read_csv(out, sep="\t").columns.tolist() == [
        "metric", "avg_corr", "sys_acc", "zh-en_sys_pearson", "zh-en_seg_pearson", "zh-en_seg_acc_t"]
    assert "en-de" not in result.stdout and "he-en" not in result.stdout


def test_protocol_and_significance_columns(wmt23_root, tmp_path, meta_eval):
    result, out = meta_eval(wmt23_root, tmp_path, "--protocol", "wmt24", "--metric", "COMET", "--metric", "BLEU",
                            "--lp", "en-de", "--significance", "50", "--no-track")
    assert result.returncode == 0, result.stderr
    table = pd.read_csv(out, sep="\t")
    assert table.columns.tolist() == ["metric", "avg_corr", "avg_corr_rank", "en-de_sys_spa", "en-de_sys_spa_rank",
                                      "en-de_seg_acc_eq", "en-de_seg_acc_eq_rank"]
    assert table.metric.tolist() == ["COMET", "BLEU"] and table.avg_corr_rank.tolist()[0] == 1
    assert "significance:50|seed:1234" in result.stdout and "0.9603 (1)" in result.stdout


def test_compare_gains_spa_under_the_wmt24_protocol(wmt23_root, tmp_path, tribunal):
    result = tribunal("mt", "compare", "COMET", "BLEU", "--data", str(wmt23_root), "--lp", "en-de",
                      "--protocol", "wmt24", "--samples", "50", "--no-track", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert "en-de sys SPA │ 5520 │ 0.9603 │ 0.8572 │ 0.1031 │ 0.0196" in text  # (1 + 0) / (1 + 50)
    assert "en-de seg acc_eq" in text and "task:wmt24-compare|a:COMET|b:BLEU" in text


def test_wmt24_protocol_reads_no_system_level_file(tiny_mtme, tmp_path, meta_eval):
    """SPA and acc_eq need segment scores only: the .sys.score files are neither parsed nor hashed."""
    first, _ = meta_eval(tiny_mtme, tmp_path, "--protocol", "wmt24", "--no-track")
    assert first.returncode == 0, first.stderr
    for path in (tiny_mtme / "metric-scores" / "en-de" / "M-refA.sys.score",
                 tiny_mtme / "human-scores" / "en-de.mqm.sys.score"):
        path.write_text("not\ta number\tat all\n")
    second, _ = meta_eval(tiny_mtme, tmp_path, "--protocol", "wmt24", "--no-track")
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout  # same table, same signature
    wmt23, _ = meta_eval(tiny_mtme, tmp_path, "--protocol", "wmt23", "--no-track")
    assert wmt23.returncode == 2 and "en-de.mqm.sys.score:1: expected 2 tab-separated columns" in wmt23.stderr


def test_esa_gold_through_the_command_line(wmt23_root, tmp_path, meta_eval):
    """``--human esa --human-dir``: the WMT24 tasks against the ESA campaign's first pass, not MQM."""
    campaign = wmt23_root.parent / "esa-wmt23"
    if not campaign.is_dir():
        pytest.skip(f"{campaign}: the ESA campaign is not in TRIBUNAL_DATA")
    args = ("--protocol", "wmt24", "--metric", "COMET", "--lp", "en-de", "--no-track")
    (tmp_path / "esa").mkdir(); (tmp_path / "mqm").mkdir()
    esa, esa_out = meta_eval(wmt23_root, tmp_path / "esa", *args, "--human", "esa", "--human-dir", str(campaign))
    mqm, mqm_out = meta_eval(wmt23_root, tmp_path / "mqm", *args)
    assert esa.returncode == 0 and mqm.returncode == 0, esa.stderr + mqm.stderr
    by_gold = {gold: pd.read_csv(out, sep="\t").set_index("metric").loc["COMET"]
               for gold, out in (("esa", esa_out), ("mqm", mqm_out))}
    assert round(by_gold["mqm"]["en-de_sys_spa"], 4) == 0.9603
    assert round(by_gold["esa"]["en-de_sys_spa"], 4) == 0.9238 and round(by_gold["esa"]["en-de_seg_acc_eq"], 4) == 0.5993

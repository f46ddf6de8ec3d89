"""How the command line writes numbers, tables, progress, long lines and files."""

from __future__ import annotations

import io
import math
import os
import stat
import time

import pandas as pd
import pytest

from tribunal.cli.numbers import count, money, number, p_value
from tribunal.cli.tables import frame_table, print_wide


def test_numbers_have_fixed_decimals_and_undefined_values_say_why():
    assert number(0.6330000000000001) == "0.6330" and number(1) == "1.0000" and number(-0.32741) == "-0.3274"
    assert number(math.nan, "no predicted error spans") == "n/a (no predicted error spans)"
    assert number(None) == "n/a" and number(math.inf, "x") == "n/a (x)"
    assert count(21.0) == "21" and count(math.nan) == "n/a"
    assert p_value(0.0123456) == "0.0123" and p_value(3.94e-9) == "3.9e-09" and p_value(0.0) == "0.0000"
    assert money(0.000123) == "$0.0001" and money(None) == "unknown"


def test_span_scores_when_nothing_was_predicted_follow_the_empty_side_convention():
    from tribunal.cli.mt_summary_lines import span_reasons
    from tribunal.core.spans import span
    from tribunal.eval.meta.spans.legacy import legacy_scores

    scores = legacy_scores([([], [span(0, 4)]), ([], [])])  # the judge marked nothing
    values = scores | {"predicted_spans": 0.0, "gold_spans": 1.0}
    reasons = span_reasons(values)
    assert number(values["char_precision"], reasons["char_precision"]) == "1.0000"  # nothing wrong was claimed
    assert number(values["char_recall"], reasons["char_recall"]) == "0.0000"  # nothing of 4 chars found
    assert number(values["span_f1"], reasons["span_f1"]) == "0.0000"
    # an undefined value still reads n/a with its reason; spans that could not be located are not "no error span"
    assert number(math.nan, reasons["char_precision"]) == "n/a (the judge marked no error span in the rated cells)"
    located_none = values | {"judge_spans": 3.0, "judge_spans_ungrounded": 3.0, "judge_spans_located": 0.0}
    assert span_reasons(located_none)["char_precision"] == \
        "none of the judge's spans in the rated cells was located in the translation (3 ungrounded)"


def wide_frame(columns: int) -> pd.DataFrame:
    data = {"metric": ["docWMT22CometKiwiDA", "BLEU"], "empty_column": [math.nan, math.nan]}
    data |= {f"en-de_seg_column_{i}": [0.123456 + i, -0.5] for i in range(columns)}
    return pd.DataFrame(data)


@pytest.mark.parametrize("width", [80, 100, 150])
def test_a_wide_table_is_split_into_groups_that_fit_and_lose_nothing(width):
    from rich.console import Console

    buffer = io.StringIO()
    console = Console(file=buffer, width=width)
    print_wide(console, frame_table(wide_frame(14), "A title", keys=["metric"], cell=number_cell))
    text = buffer.getvalue()
    assert max(len(line) for line in text.splitlines()) <= width
    for i in range(14):
        assert f"{0.123456 + i:.4f}" in text
    groups = text.count("docWMT22CometKiwiDA")  # the key column is in every group
    assert (groups > 1 or width == 150) and "empty_column" not in text  # all-empty columns are left out
    if groups > 1:
        assert f"A title (1/{groups})" in text and f"continued ({groups}/{groups})" in text


def number_cell(value) -> str:
    return number(value) if isinstance(value, float) else str(value)


def test_meta_eval_of_one_pair_shows_no_empty_columns(capsys, wmt23_root, tmp_path):
    from tests.support.cli import run_cli

    table = tmp_path / "t.tsv"
    outcome = run_cli(capsys, "mt", "meta-eval", "--data", wmt23_root, "--lp", "zh-en", "--metric", "BLEU",
                      "--output", table, "--no-track")
    assert outcome.status == 0 and "zh-en" in outcome.out
    assert "en-de" not in outcome.out and "he-en" not in outcome.out and "—" not in outcome.out
    assert outcome.out.count("BLEU") == 1  # one table, not split


def test_progress_bars_are_labelled_with_counts_and_eta_at_a_terminal(monkeypatch):
    from rich.console import Console

    import tribunal.cli.progress as progress

    buffer = io.StringIO()
    terminal = Console(file=buffer, force_terminal=True, width=100)
    monkeypatch.setattr(progress, "make_console", lambda **_kwargs: terminal)
    with progress.progress_bars() as report:
        report("judging M-MAD zh-en", 0, 20)
        time.sleep(0.2)  # a rate to estimate the remaining time from
        report("judging M-MAD zh-en", 6, 20)
        time.sleep(0.2)
        report("judging M-MAD zh-en", 12, 20)
    text = buffer.getvalue()  # the frames drawn (the last one is cleared on the screen, not in the buffer)
    assert "judging M-MAD zh-en" in text and "12/20" in text and "ETA" in text


def test_progress_bars_draw_nothing_off_a_terminal(capsys):
    from tribunal.cli.progress import progress_bars

    with progress_bars() as report:
        report("judging", 3, 10)
    assert capsys.readouterr() == ("", "")


def test_machine_readable_lines_are_never_wrapped():
    from rich.console import Console

    from tribunal.cli.console import line

    buffer = io.StringIO()
    text = "signature: prog:mmad|preset:paper|strategy:consensus|rounds:3|" + "|".join(f"k{i}:[v{i}]" for i in range(40))
    line(Console(file=buffer, width=80), text)
    assert buffer.getvalue() == text + "\n"  # one line, markup-like [v1] kept literally


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_result_files_get_the_mode_of_an_ordinary_open(tmp_path, umask):
    from tribunal.data.atomic import current_umask, write_text_atomically

    previous = os.umask(umask)
    try:
        assert current_umask() == umask
        path = write_text_atomically(tmp_path / "out" / "scores.tsv", "a\t1\n")
        with open(tmp_path / "plain.txt", "w") as plain:
            plain.write("x")
    finally:
        os.umask(previous)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask == stat.S_IMODE((tmp_path / "plain.txt").stat().st_mode)
    assert path.read_text() == "a\t1\n" and not list(path.parent.glob(".*.tmp"))

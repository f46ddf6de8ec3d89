"""``--help`` of every command: an example, current wording, nothing cut at 80 columns.

The examples are checked against the command they illustrate: every option an example names exists
on that command, so an example cannot go stale when an option is renamed.
"""

from __future__ import annotations

import re
import shlex

import pytest

from tests.support.cli import run_cli
from tests.tribunal.commands import leaf_commands, options

COMMANDS = {path: command for path, command in leaf_commands()}


def help_text(capsys, monkeypatch, *path: str, columns: int = 80) -> str:
    monkeypatch.setenv("COLUMNS", str(columns))
    outcome = run_cli(capsys, *path, "--help")
    assert outcome.status == 0 and outcome.err == "", outcome.err
    return outcome.out


def example_lines(text: str) -> list[str]:
    """The command lines under ``Example:`` / ``Examples:``."""
    block = re.search(r"Examples?:\n((?:  +\S.*\n?)+)", text)
    assert block, f"no example in:\n{text}"
    return [line.strip() for line in block.group(1).splitlines() if line.strip()]


def test_the_command_tree_is_the_documented_one():
    assert sorted(" ".join(p) for p in COMMANDS) == [
        "data cache clear", "data check", "data fetch", "demo", "equiv audit", "equiv generate", "export",
        "hyp divergence", "hyp run", "local install", "mt agreement", "mt compare", "mt evaluate", "mt judges",
        "mt meta-eval", "mt span-eval", "optimize",
        "runs compare", "runs list", "runs view"]


@pytest.mark.parametrize("path", sorted(COMMANDS), ids=" ".join)
def test_every_command_has_a_summary_an_example_and_help_on_every_option(path, capsys, monkeypatch):
    text = help_text(capsys, monkeypatch, *path)
    assert text.startswith(f"Usage: tribunal {' '.join(path)} ")
    summary = text.split("\n\n")[1].strip()
    assert summary and len(summary) <= 70, summary  # the first line; groups list it uncut
    examples = example_lines(text)
    named = []
    for example in examples:  # each example checked against the command it runs (a follow-up may run another)
        for part in example.split("#")[0].split("&&"):
            words = shlex.split(part)
            words = words[next(i for i, w in enumerate(words) if w == "tribunal"):]
            command = next(p for p in COMMANDS if tuple(words[1:1 + len(p)]) == p)
            named.append(command)
            names = {n for names in options(COMMANDS[command]) for n in names}
            for word in words:
                if word.startswith("--"):
                    assert word in names, f"{example}: {word} is not an option of tribunal {' '.join(command)}"
    assert path in named, f"no example runs tribunal {' '.join(path)}"
    for names in options(COMMANDS[path]):  # every option is explained, not only listed
        entry = re.search(rf"^  (-\w, )?{re.escape(names[0])}\b.*?(?=^  -|^\S|\Z)", text, re.M | re.S)
        assert entry and len(" ".join(entry.group(0).split())) > len(" / ".join(names)) + 12, names
    assert "--verbose" in text  # the global option is mentioned on every command


def test_group_listings_are_not_cut_at_80_columns(capsys, monkeypatch):
    for group in ((), ("mt",), ("equiv",), ("hyp",), ("data",), ("runs",)):
        text = help_text(capsys, monkeypatch, *group)
        assert "..." not in text.split("Commands:")[1], text


def test_defaults_are_whole_at_80_columns(capsys, monkeypatch):
    text = " ".join(help_text(capsys, monkeypatch, "equiv", "generate").split())
    assert "[default: tribunal-out/equiv-generated.jsonl]" in text and "…" not in text
    evaluate = help_text(capsys, monkeypatch, "mt", "evaluate")
    assert "…" not in evaluate and max(len(line) for line in evaluate.splitlines() if not line.startswith("    ")) <= 80
    assert "$TRIBUNAL_DATA/wmt23" in evaluate and "<list[str]>" not in evaluate  # placeholders, not types
    assert "--role-lm ROLE=MODEL[@URL]" in evaluate and "--api-key-env VAR" in evaluate


def test_current_wording(capsys, monkeypatch):
    demo = " ".join(help_text(capsys, monkeypatch, "demo").split())
    assert "later steps join as they land" not in demo
    for words in ("WMT23 meta-evaluation of every shipped metric", "perturbation audit", "TRIBUNAL_LM",
                  "M-MAD on 5", "[env var: TRIBUNAL_LM]"):
        assert words in demo, words
    evaluate = " ".join(help_text(capsys, monkeypatch, "mt", "evaluate").split())
    assert "--lp LP Language pair, e.g. zh-en. Required (here or as lp in --config)" in evaluate
    assert "Required (here or as lm.model in --config)" in evaluate and "--experiment NAME" in evaluate
    optimize = " ".join(help_text(capsys, monkeypatch, "optimize").split())
    assert "(--budget: demos | demos" not in optimize
    for words in ("labeled: labelled demos per predictor (default 4)", "mipro: trials (default 12)",
                  "gepa: metric calls (default 200)", "--api-key-env VAR", "--experiment NAME",
                  "--optimizer NAME The DSPy optimizer: labeled (LabeledFewShot)"):
        assert words in optimize, words
    assert "[required]" in optimize  # --program, --optimizer, --train, --dev, --lm
    divergence = " ".join(help_text(capsys, monkeypatch, "hyp", "divergence").split())
    assert "--tfidf-threshold X tfidf rule: TF-IDF cosine similarity at or above which" in divergence
    assert "--embedding-threshold X embedding rule: embedding cosine similarity" in divergence
    for path in (("equiv", "audit"), ("equiv", "generate"), ("hyp", "run"), ("hyp", "divergence"),
                 ("mt", "evaluate"), ("optimize",), ("demo",)):  # the same LM options everywhere
        text = help_text(capsys, monkeypatch, *path)
        for option in ("--lm", "--api-base", "--api-key-env", "--cache / --no-cache"):
            assert option in text, (path, option)
    for path in (("mt", "meta-eval"), ("mt", "compare"), ("mt", "evaluate"), ("equiv", "audit"),
                 ("equiv", "generate"), ("hyp", "run"), ("hyp", "divergence"), ("optimize",), ("demo",)):
        text = help_text(capsys, monkeypatch, *path)
        for option in ("--tracking-uri", "--experiment", "--no-track"):
            assert option in text, (path, option)


def test_help_does_not_wrap_examples_at_any_width(capsys, monkeypatch):
    text = help_text(capsys, monkeypatch, "optimize", columns=60)
    assert any(line.strip().startswith("tribunal optimize --program gemba-mqm --optimizer mipro --budget 12 "
                                       "--train mqm-ted:en-de:0-200") for line in text.splitlines())


def test_a_group_alone_shows_its_help(capsys):
    outcome = run_cli(capsys, "mt")
    assert outcome.status == 2 and "Traceback" not in outcome.err
    assert "Usage: tribunal mt [OPTIONS] COMMAND" in outcome.err and "evaluate   Judge translations" in outcome.err

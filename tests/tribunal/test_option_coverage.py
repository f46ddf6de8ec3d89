"""Every option of every command is passed to that command by some test.

A guard beside the tests that check each option's effect (``test_cli_options_*.py`` and the
package tests): an option that no test passes to its command fails here, so a new option cannot
land untested. An option counts only when it is written in a command line of that command
(:mod:`tests.tribunal.invocations`): naming the command in one place of a file and the option in
another, or only reading the option in ``--help``, does not.
"""

from __future__ import annotations

from pathlib import Path

from tests.tribunal.commands import leaf_commands, options
from tests.tribunal.invocations import Invocations

TESTS = Path(__file__).resolve().parents[1]


def _passed(root: Path, commands: list[tuple[str, ...]], skip: Path | None = None) -> dict[tuple[str, ...], set[str]]:
    passed: dict[tuple[str, ...], set[str]] = {}
    for command, opts in Invocations(root, commands, skip).lines():
        passed.setdefault(command, set()).update(opts)
    return passed


def test_every_option_of_every_command_is_passed_by_a_test():
    tree = dict(leaf_commands())
    passed = _passed(TESTS, list(tree), skip=Path(__file__).resolve())
    never_run = [" ".join(path) for path in tree if path not in passed]
    assert not never_run, "commands no test runs: " + ", ".join(never_run)
    missing = [f"tribunal {' '.join(path)} {' / '.join(names)}" for path, command in tree.items()
               for names in options(command) if not passed[path].intersection(names)]
    assert not missing, "options no test passes to their command:\n" + "\n".join(missing)


def test_only_options_written_in_a_command_line_count(tmp_path):
    (tmp_path / "helpers.py").write_text(
        'def evaluate(*extra):\n    return ["mt", "evaluate", "--lp", "zh-en", *extra]\n')
    (tmp_path / "test_sample.py").write_text(
        'import pytest\n'
        'from tests.helpers import evaluate\n'
        'BASE = ["--limit", "2"]\n'
        'def test_direct(capsys):\n'
        '    run_cli(capsys, "mt", "evaluate", *BASE, "--strategy", "x")\n'
        '    other("--topic")\n'
        '    tribunal(["data", "check"] + ["--data", "d"])\n'
        '@pytest.mark.parametrize("extra", [["--rounds", "2"]])\n'
        'def test_helper(capsys, extra):\n'
        '    run_cli(capsys, *evaluate("--demos", "1", *extra))\n'
        'def _commands():\n'
        '    return {"compare": ["mt", "compare", "A", "B"]}\n'
        'def test_indexed(capsys):\n'
        '    run_cli(capsys, *_commands()["compare"], "--samples", "5")\n'
        'def test_help(capsys):\n'
        '    text = run_cli(capsys, "mt", "compare", "--help").out\n'
        '    for option in ("--seed",):\n'
        '        assert option in text\n')
    passed = _passed(tmp_path, [("mt", "evaluate"), ("data", "check"), ("mt", "compare")])
    assert passed[("mt", "evaluate")] == {"--lp", "--limit", "--strategy", "--demos", "--rounds"}
    assert passed[("data", "check")] == {"--data"}
    assert passed[("mt", "compare")] == {"--samples", "--help"}

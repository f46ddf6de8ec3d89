"""Running ``tribunal`` in-process through its real entry point (:func:`tribunal.cli.main`).

Unlike Typer's CliRunner, this goes through the one place that turns failures into a line on
stderr and an exit status, which is what a user meets.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest


@dataclass
class Outcome:
    status: int
    out: str
    err: str

    @property
    def err_lines(self) -> list[str]:
        return [line for line in self.err.splitlines() if line.strip()]


def run_cli(capsys: pytest.CaptureFixture, *argv: str) -> Outcome:
    """``tribunal ARGV...`` in this process; its exit status and captured output."""
    from tribunal.cli import main

    capsys.readouterr()  # drop anything printed before
    with pytest.raises(SystemExit) as exited:
        main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return Outcome(int(exited.value.code or 0), out, err)


def assert_one_line_error(outcome: Outcome, *fragments: str, status: int = 2) -> str:
    """The outcome is ``status`` and exactly one ``tribunal: error:`` line holding every fragment."""
    assert outcome.status == status, (outcome.status, outcome.err, outcome.out[-2000:])
    assert "Traceback" not in outcome.err
    lines = outcome.err_lines
    assert len(lines) == 1, outcome.err
    assert lines[0].startswith("tribunal: error: "), lines[0]
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]

"""``tribunal optimize`` on a judge added with a setting of its own (``tests/support/strict_judge.py``):
``--set strictness=high`` is validated by its settings model, keys the run's signature and travels in the
export, whose loaded program is the strict one (the item-7 test of issue 43; the other doors:
``tests/core/test_added_judge_settings.py``)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from tests.support.injected_engine import use_engine
from tests.support.strict_judge import registered
from tribunal.cli import app
from tribunal.data.program_export import read_export
from tribunal.optimizers.program_loader import load_program

ENGINE = "tests.optimizers.mqm_task:engine"
TRAIN, DEV = "mqm-ted:en-de:0-20", "mqm-ted:en-de:200-210"


@pytest.fixture
def strict(monkeypatch, ted_en_de):
    use_engine(monkeypatch, ENGINE)
    with registered() as judge:
        yield judge


def test_optimize_keeps_and_keys_the_added_judges_setting(strict, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "strict.json"
    result = CliRunner().invoke(app, ["optimize", "--program", strict.name, "--set", "strictness=high",
                                      "--optimizer", "labeled", "--budget", "2", "--train", TRAIN, "--dev", DEV,
                                      "--lm", "openai/judge", "--threads", "2", "--out", str(out), "--no-track"])
    assert result.exit_code == 0, (result.output, result.exception)
    assert "|set:strictness=high|" in result.output
    assert read_export(out)["program"]["config"] == {"strictness": "high"}
    program, _ = load_program(out, expected_name=strict.name)
    assert program.config.strictness == "high" and len(program.annotate.demos) == 2
    wrong = CliRunner().invoke(app, ["optimize", "--program", strict.name, "--set", "strict=high", "--optimizer",
                                     "labeled", "--train", TRAIN, "--dev", DEV, "--lm", "openai/judge", "--no-track"])
    assert wrong.exit_code != 0 and "program test-strict-gemba has no such setting (known: strictness)" in \
        str(wrong.exception)

"""``--rpm`` / ``--tpm`` on ``mt evaluate`` and ``optimize``: bad values refused in one line, flags over the file."""

from __future__ import annotations

import time

import pytest

from tests.support.cli import assert_one_line_error, run_cli
from tests.support.dspy_cache import dspy_cache_off
from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tests.eval.mt.helpers import KEY_ENV, SECRET, wmt23

LM = ["--lm", "openai/x"]
COMMANDS = {
    "evaluate": ["mt", "evaluate", "--lp", "zh-en", *LM],
    "optimize": ["optimize", "--program", "gemba-mqm", "--optimizer", "labeled", "--train", "mqm-ted:zh-en:0-2",
                 "--dev", "mqm-ted:zh-en:2-4", *LM, "--no-track"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("flag, value", [("--rpm", "0"), ("--rpm", "-5"), ("--tpm", "0"), ("--tpm", "nan")])
def test_a_rate_that_is_not_positive_is_refused_in_one_line(command, flag, value, capsys):
    outcome = run_cli(capsys, *COMMANDS[command], flag, value)
    assert_one_line_error(outcome, flag, "positive number per minute")


def test_optimize_refuses_a_bad_rate_beside_a_good_one(capsys):
    outcome = run_cli(capsys, "optimize", "--program", "gemba-mqm", "--optimizer", "labeled", "--train",
                      "mqm-ted:zh-en:0-2", "--dev", "mqm-ted:zh-en:2-4", "--lm", "openai/x", "--no-track",
                      "--rpm", "120", "--tpm", "-1")
    assert_one_line_error(outcome, "--tpm -1", "positive number per minute")


def test_a_config_files_rate_that_is_not_positive_is_refused_in_one_line(tmp_path, capsys):
    config = tmp_path / "run.toml"
    config.write_text('lp = "zh-en"\n[lm]\nmodel = "openai/x"\nrpm = 0\n', encoding="utf-8")
    outcome = run_cli(capsys, "mt", "evaluate", "--config", config, "--data", wmt23(), "--no-track")
    assert_one_line_error(outcome, "lm.rpm", "greater than 0")


def test_the_flags_override_the_config_files_rates(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    config = tmp_path / "run.toml"  # one request a minute: four items would take three minutes
    config.write_text('lp = "zh-en"\n[lm]\nmodel = "openai/judge"\nrpm = 1\ntpm = 1\n', encoding="utf-8")
    with loopback_server(synthetic_judge) as (api_base, state), dspy_cache_off():
        started = time.monotonic()
        outcome = run_cli(capsys, "mt", "evaluate", "--config", config, "--data", wmt23(), "--api-base", api_base,
                          "--api-key-env", KEY_ENV, "--limit", "4", "--program", "gemba-mqm", "--concurrency", "4",
                          "--rpm", "60000", "--tpm", "100000000", "--out", tmp_path / "out", "--no-track")
        elapsed = time.monotonic() - started
    assert outcome.status == 0, outcome.err
    assert len(state.hits) == 4 and elapsed < 20


def test_estimate_rehearses_without_pacing(tmp_path, capsys):
    # One request a minute would make the rehearsal of 6 items take five minutes; nothing is sent, so nothing waits.
    started = time.monotonic()
    outcome = run_cli(capsys, "mt", "evaluate", "--lp", "zh-en", "--lm", "openai/gpt-4o-mini", "--data", wmt23(),
                      "--limit", "6", "--program", "gemba-mqm", "--rpm", "1", "--estimate", "--no-track",
                      "--out", tmp_path / "out")
    assert outcome.status == 0, outcome.err
    assert time.monotonic() - started < 30

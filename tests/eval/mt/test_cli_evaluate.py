"""``tribunal mt evaluate`` and ``tribunal demo`` end to end over the loopback server."""

from __future__ import annotations

from typer.testing import CliRunner

from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tribunal.cli import app

from .helpers import KEY_ENV, SECRET, wmt23


def test_evaluate_prints_the_summary_and_rejects_bad_options(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "cache"))
    with loopback_server(synthetic_judge) as (api_base, state):
        args = ["mt", "evaluate", "--data", str(wmt23()), "--lp", "zh-en", "--lm", "openai/judge", "--api-base",
                api_base, "--api-key-env", KEY_ENV, "--limit", "3", "--program", "gemba-mqm",
                "--out", str(tmp_path / "out"), "--no-track"]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
        assert "scored 3, unscored 0" in result.output and "LM calls: 3 (gemba 3)" in result.output
        assert "prog:gemba-mqm" in result.output and SECRET not in result.output
        bad = CliRunner().invoke(app, args[:-3] + ["--rounds", "0", "--no-track"])
        assert bad.exit_code != 0 and "--rounds: an M-MAD setting, but the program is gemba-mqm" in str(bad.exception)


import pytest  # noqa: E402


@pytest.mark.slow
def test_demo_runs_mmad_when_an_lm_is_configured(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TRIBUNAL_DATA", str(wmt23().parent))
    with loopback_server(synthetic_judge) as (api_base, state):
        monkeypatch.setenv("TRIBUNAL_LM", "openai/judge")
        monkeypatch.setenv("TRIBUNAL_API_BASE", api_base)
        monkeypatch.setenv("TRIBUNAL_API_KEY_ENV", KEY_ENV)
        result = CliRunner().invoke(app, ["demo", "--no-track", "--out", str(tmp_path / "demo")])
    assert result.exit_code == 0, result.output
    assert "M-MAD on 5 WMT23 zh-en items" in result.output and "scored 5" in result.output
    assert state.hits

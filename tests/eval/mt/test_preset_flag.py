"""``tribunal mt evaluate --preset``: the paper protocol by default, the lean one a flag away."""

from __future__ import annotations

from typer.testing import CliRunner

from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tribunal.cli import app

from .helpers import KEY_ENV, SECRET, wmt23


def test_preset_flag_selects_the_protocol_and_names_it(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "cache"))
    with loopback_server(synthetic_judge) as (api_base, state):
        base = ["mt", "evaluate", "--data", str(wmt23()), "--lp", "zh-en", "--lm", "openai/judge", "--api-base",
                api_base, "--api-key-env", KEY_ENV, "--limit", "1", "--demos", "0", "--no-track"]
        paper = CliRunner().invoke(app, base + ["--out", str(tmp_path / "paper")])
        lean = CliRunner().invoke(app, base + ["--preset", "lean", "--out", str(tmp_path / "lean")])
        bad = CliRunner().invoke(app, base + ["--preset", "draft", "--out", str(tmp_path / "bad")])
    assert paper.exit_code == 0 and lean.exit_code == 0, (paper.output, lean.output)
    assert "preset:paper" in paper.output and "preset:lean" in lean.output
    assert (tmp_path / "paper" / "metric-scores" / "zh-en" / "M-MAD-src.seg.score").is_file()
    assert (tmp_path / "lean" / "metric-scores" / "zh-en" / "M-MAD-lean-src.seg.score").is_file()
    asked = {name for name, _, _ in state.hits}
    assert {"GuidedAccuracyAssessment", "AccuracyAssessment"} <= asked  # the paper's agents, then the lean ones
    assert bad.exit_code != 0 and "mmad.preset: Input should be 'paper' or 'lean'" in str(bad.exception)

"""``tribunal mt evaluate --program FILE``: a tuned export runs with its own instructions and demos."""

from __future__ import annotations

from typer.testing import CliRunner

from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tribunal.cli import app
from tribunal.errors import UserError
from tribunal.data.program_export import export_document, write_export
from tribunal.programs.mqm.gemba import GembaMQMJudge

from .helpers import KEY_ENV, SECRET, wmt23

MARK = "TUNED-INSTRUCTION-7f3a"


def tuned_gemba(path):
    program = GembaMQMJudge()
    predictor = program.annotate
    predictor.signature = predictor.signature.with_instructions(predictor.signature.instructions + "\n" + MARK)
    return write_export(export_document(program, "gemba-mqm", {}, {"dev_score": 0.5}), path)


def test_evaluate_runs_a_tuned_export(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "cache"))
    export = tuned_gemba(tmp_path / "gemba.json")
    with loopback_server(synthetic_judge) as (api_base, state):
        args = ["mt", "evaluate", "--data", str(wmt23()), "--lp", "zh-en", "--lm", "openai/judge", "--api-base",
                api_base, "--api-key-env", KEY_ENV, "--limit", "2", "--program", str(export),
                "--out", str(tmp_path / "out"), "--no-track"]
        result = CliRunner().invoke(app, args)
        seen = list(state.system_prompts)
    assert result.exit_code == 0, result.output
    assert "scored 2, unscored 0" in result.output and "prog:gemba-mqm|tuned:" in result.output
    assert len(seen) == 2 and all(MARK in system for system in seen)  # every call carried the tuned instruction


def test_export_of_another_program_is_refused(tmp_path):
    import pytest

    from tribunal.eval.mt.config import EvaluateConfig
    from tribunal.eval.mt.judge_builder import program_factory
    from tribunal.programs.lm import LMSettings

    export = tuned_gemba(tmp_path / "gemba.json")
    config = EvaluateConfig(data=wmt23(), lp="zh-en", lm=LMSettings(model="openai/judge"), program="mmad",
                            program_file=export, program_sha256="x")
    with pytest.raises(UserError, match="exported program is 'gemba-mqm', not 'mmad'"):
        program_factory(config)
    ablated = config.model_copy(update={"program": "gemba-mqm"})
    program_factory(ablated)  # the matching program loads


def test_tuned_mmad_brings_its_settings(tmp_path, monkeypatch):
    from tribunal.programs.mqm.mmad import MMAD, MMADConfig

    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "cache"))
    export = write_export(export_document(MMAD(MMADConfig(ablate=("stage2",))), "mmad", {"ablate": ["stage2"]}, {}),
                          tmp_path / "mmad.json")
    with loopback_server(synthetic_judge) as (api_base, state):
        args = ["mt", "evaluate", "--data", str(wmt23()), "--lp", "zh-en", "--lm", "openai/judge", "--api-base",
                api_base, "--api-key-env", KEY_ENV, "--limit", "4", "--program", str(export),
                "--out", str(tmp_path / "out"), "--no-track"]
        result = CliRunner().invoke(app, args)
        names = {name for name, _, _ in state.hits}
    assert result.exit_code == 0, result.output
    assert "ablate:stage2" in result.output  # the signature carries the export's settings
    assert names and not any("Debate" in n or "Review" in n for n in names)  # no stage-2 calls

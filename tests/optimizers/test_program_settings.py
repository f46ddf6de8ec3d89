"""``--set KEY=VALUE``: validated by each program's own config, kept in the export, rebuilt on load."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from tribunal.cli import app
from tribunal.errors import UserError
from tribunal.data.program_export import export_document, write_export
from tribunal.optimizers.program_loader import load_program
from tribunal.data.program_identity import program_identity
from tribunal.optimizers.program_settings import build_configured, parse_assignments, program_config
from tribunal.optimizers.program_source import resolve_program
from tribunal.programs.mqm.mmad import MMAD


def test_assignments_are_parsed_strictly():
    assert parse_assignments(["rubric=component", " rounds = 2 "]) == {"rubric": "component", "rounds": "2"}
    assert parse_assignments(["topic=a=b"]) == {"topic": "a=b"}
    for bad, message in ((["rubric"], "expected KEY=VALUE"), (["=x"], "expected KEY=VALUE"),
                         (["a=1", "a=2"], "given twice")):
        with pytest.raises(UserError, match=message):
            parse_assignments(bad)


def test_mmad_settings_go_through_mmadconfig_and_back():
    config = program_config("mmad", {"strategy": "deliberation", "rounds": "2", "ablate": "stage3, stage1"})
    assert config == {"preset": "paper", "strategy": "deliberation", "rounds": 2, "ablate": ["stage3", "stage1"]}
    assert program_config("mmad", {"rounds": "3"}) == {"preset": "paper"}  # a default is no setting; the preset
    # is always recorded, so an export keeps its protocol if the default preset ever changes
    resolved = resolve_program("mmad", expected_kind="mt", settings={"strategy": "deliberation", "ablate": "stage1"})
    assert resolved.config == {"preset": "paper", "strategy": "deliberation", "ablate": ["stage1"]}
    assert resolved.program.config.strategy == "deliberation" and hasattr(resolved.program, "coupled")
    assert "debate.judge" in [path for path, _ in resolved.program.named_predictors()]


def test_export_records_the_config_and_loading_rebuilds_the_same_structure(tmp_path):
    resolved = resolve_program("mmad", settings={"strategy": "interactive-review", "ablate": "stage3"})
    path = write_export(export_document(resolved.program, "mmad", resolved.config, {}), tmp_path / "mmad.json")
    assert program_identity(resolved.program) != program_identity(MMAD())  # the settings change the structure
    loaded, document = load_program(path, expected_name="mmad")
    assert document["program"]["config"] == {"preset": "paper", "strategy": "interactive-review", "ablate": ["stage3"]}
    assert program_identity(loaded) == program_identity(resolved.program) and not hasattr(loaded, "judge")
    again = resolve_program(str(path))
    assert again.config == resolved.config and again.program.config == resolved.program.config


def test_equiv_rubric_is_a_constructor_setting(tmp_path):
    resolved = resolve_program("equiv-llm", expected_kind="equiv", settings={"rubric": "component"})
    assert resolved.program.rubric == "component" and resolved.config == {"rubric": "component"}
    path = write_export(export_document(resolved.program, "equiv-llm", resolved.config, {}), tmp_path / "eq.json")
    assert load_program(path)[0].rubric == "component"


@pytest.mark.parametrize("program, settings, message", [
    ("mmad", {"strategy": "shouting"}, "program mmad with preset=paper, strategy=shouting: unknown debate strategy"),
    ("mmad", {"rubric": "full"},
     "--set rubric: program mmad has no such setting .known: ablate, assessors, consensus_check"),
    ("mmad", {"rounds": "many"}, "--set rounds=many: Input should be a valid integer"),
    ("mmad", {"ablate": "stage4"}, "--set ablate=stage4: Input should be 'stage1', 'stage2' or 'stage3'"),
    ("mmad", {"rounds": "0"}, "--set rounds=0: Input should be greater than or equal to 1"),
    ("equiv-llm", {"rubric": "vibes"}, "program equiv-llm with rubric=vibes: unknown rubric 'vibes'"),
    ("equiv-llm", {"strategy": "x"}, r"--set strategy: program equiv-llm has no such setting \(known: rubric\)"),
    ("gemba-mqm", {"lms": "x"}, "program gemba-mqm has no such setting .it takes no settings"),
])
def test_bad_settings_are_one_line_user_errors(program, settings, message):
    with pytest.raises(UserError, match=message) as info:
        resolve_program(program, settings=settings)
    assert "\n" not in str(info.value)


def test_an_export_takes_no_settings(tmp_path):
    path = write_export(export_document(MMAD(), "mmad", {}, {}), tmp_path / "mmad.json")
    with pytest.raises(UserError, match="carries its own configuration"):
        resolve_program(str(path), settings={"rounds": "2"})
    assert build_configured("mmad", {}).config == MMAD().config


def test_cli_set_reaches_the_program_and_malformed_values_stop_before_any_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    args = ["optimize", "--program", "mmad", "--optimizer", "labeled", "--train", "suite:0-4", "--dev", "suite:4-8",
            "--lm", "openai/judge", "--no-track"]
    malformed = CliRunner().invoke(app, args + ["--set", "rounds"])
    assert isinstance(malformed.exception, UserError) and "--set rounds: expected KEY=VALUE" in str(malformed.exception)
    unknown = CliRunner().invoke(app, args + ["--set", "colour=red"])
    assert isinstance(unknown.exception, UserError) and "--set colour: program mmad" in str(unknown.exception)
    assert not (tmp_path / "tribunal-out").exists()

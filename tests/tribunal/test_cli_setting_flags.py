"""A judge's settings on the command line: ``-S KEY=VALUE`` and the flags its registry entry declares,
refused in one line naming the judge and its settings; ``tribunal mt judges`` lists them."""

from __future__ import annotations

import json

from tests.support.cli import assert_one_line_error, run_cli
from tests.support.strict_judge import registered


def evaluate(*extra):
    return ["mt", "evaluate", "--lp", "zh-en", "--lm", "openai/x", "--api-base", "http://127.0.0.1:9/v1",
            "--no-track", *extra]


def test_a_setting_the_judge_does_not_have_names_the_judge_and_its_settings(capsys):
    outcome = run_cli(capsys, *evaluate("--setting", "round=2"))
    assert_one_line_error(outcome, "-S round=2: M-MAD has no setting 'round' (its settings: preset, strategy, "
                                   "rounds, topic, ablate, ")
    outcome = run_cli(capsys, *evaluate("--program", "gemba-mqm", "-S", "rounds=2"))
    assert_one_line_error(outcome, "-S rounds=2: GEMBA-MQM (gemba-mqm) takes no settings")
    outcome = run_cli(capsys, *evaluate("-S", "rounds"))
    assert_one_line_error(outcome, "-S rounds: expected KEY=VALUE")


def test_a_value_the_settings_model_refuses_is_one_line_naming_its_section(capsys):
    outcome = run_cli(capsys, *evaluate("-S", "rounds=many"))
    assert_one_line_error(outcome, "mmad.rounds: Input should be a valid integer")
    outcome = run_cli(capsys, *evaluate("--program", "gemba-esa", "-S", "ablate=verifier"))
    assert_one_line_error(outcome, "esa.ablate.0: Input should be 'spans'")


def test_a_flag_of_another_judge_is_refused(capsys):
    outcome = run_cli(capsys, *evaluate("--program", "gemba-mqm", "--rounds", "2"))
    assert_one_line_error(outcome, "--rounds: an M-MAD setting, but the program is gemba-mqm")
    outcome = run_cli(capsys, *evaluate("--program", "eaprompt", "--ablate", "stage2"))
    assert_one_line_error(outcome, "--ablate: program eaprompt has no setting 'ablate' (a setting of mmad, "
                                   "gemba-esa, mqm-ape)")


def test_a_config_section_of_another_judge_is_refused(capsys, tmp_path):
    config = tmp_path / "run.toml"
    config.write_text('program = "gemba-esa"\n[mmad]\nrounds = 2\n')
    outcome = run_cli(capsys, *evaluate("--config", config))
    assert_one_line_error(outcome, "[mmad]: M-MAD's settings (--program mmad), but the program is gemba-esa "
                                   "(its settings: [esa])")


def test_mt_judges_lists_every_judge_with_its_settings(capsys):
    outcome = run_cli(capsys, "mt", "judges")
    assert outcome.status == 0
    assert "mmad (M-MAD, mqm scale, the default): settings in [mmad] of --config" in outcome.out
    assert "  rounds (int; default 3, --rounds): most debate rounds" in outcome.out
    assert "gemba-mqm (GEMBA-MQM, mqm scale): no settings" in outcome.out
    with registered():
        listed = json.loads(run_cli(capsys, "mt", "judges", "--json").out)
    strict = next(j for j in listed if j["name"] == "test-strict-gemba")
    assert strict["section"] == "strict" and strict["settings"] == [
        {"name": "strictness", "type": "low | high", "default": "low", "description": "high: every error counts twice"}]

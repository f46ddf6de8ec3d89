"""A judge added with a setting of its own (``tests/support/strict_judge.py``: GEMBA-MQM whose
``strictness=high`` counts every error twice) runs through every door with its setting honoured and keyed:
``tribunal mt evaluate`` (``-S strictness=high`` and the ``[strict]`` section of a config file), the MLflow
scorer (``settings={...}``) and the pyfunc model of an export (``tribunal optimize``: tests/optimizers).
Nothing but its program file and one registry entry was written for it."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from tests.eval.mt.helpers import KEY_ENV, SECRET
from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tests.support.small_mtme import write_small_mtme
from tests.support.strict_judge import STRICT, registered
from tribunal.cli import app
from tribunal.data.score_files import read_seg_scores
from tribunal.eval.mt.config import EvaluateConfig
from tribunal.programs.lm import LMSettings

LM = LMSettings(model="openai/x")


@pytest.fixture
def strict():
    with registered() as judge:
        yield judge


@pytest.fixture
def served(monkeypatch, tmp_path):
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "cache"))
    with loopback_server(synthetic_judge) as (api_base, _state):
        yield api_base


def evaluate(api_base: str, data: Path, out: Path, *extra: str):
    result = CliRunner().invoke(app, ["mt", "evaluate", "--data", str(data), "--lp", "en-de", "--lm", "openai/judge",
                                      "--api-base", api_base, "--api-key-env", KEY_ENV, "--program", STRICT.name,
                                      "--out", str(out), "--no-track", *extra])
    assert result.exit_code == 0, (result.output, result.exception)
    return result.output


def scores(out: Path, name: str) -> dict[str, list]:
    read = read_seg_scores(out / "metric-scores" / "en-de" / f"{name}-src.seg.score")
    return {system: [float(v) for v in values] for system, values in read.items()}


def test_its_setting_keys_the_journal_signature_metric_name_and_folder(strict):
    low = EvaluateConfig(lp="zh-en", lm=LM, program=strict.name)
    high = EvaluateConfig(lp="zh-en", lm=LM, program=strict.name, strict={"strictness": "high"})
    assert (low.metric_name, high.metric_name) == ("GEMBA-STRICT", "GEMBA-STRICT-strictnesshigh")
    assert "|settings:strictness=low|" in low.config_signature()
    assert "|settings:strictness=high|" in high.config_signature()
    assert low.output_dir != high.output_dir


def test_a_section_of_another_judge_is_refused_naming_the_judge_that_takes_it(strict, tmp_path):
    with pytest.raises(ValueError, match=r"\[mmad\]: M-MAD's settings \(--program mmad\), but the program is "
                                         r"test-strict-gemba \(its settings: \[strict\]\)"):
        EvaluateConfig(lp="zh-en", lm=LM, program=strict.name, mmad={"rounds": 2})


def test_mt_evaluate_honours_S_and_the_config_section_alike(strict, served, tmp_path, monkeypatch):
    data = write_small_mtme(tmp_path / "mtme")
    low = evaluate(served, data, tmp_path / "low")
    high = evaluate(served, data, tmp_path / "high", "-S", "strictness=high")
    config = tmp_path / "run.toml"
    config.write_text('[strict]\nstrictness = "high"\n')
    filed = evaluate(served, data, tmp_path / "filed", "--config", str(config))
    signature = [line for line in high.splitlines() if line.startswith("signature: ")]
    assert signature and "|settings:strictness=high|" in signature[0]
    assert signature[0] in filed.splitlines() and signature[0] not in low.splitlines()
    plain, doubled = scores(tmp_path / "low", "GEMBA-STRICT"), scores(tmp_path / "high", "GEMBA-STRICT-strictnesshigh")
    assert doubled == scores(tmp_path / "filed", "GEMBA-STRICT-strictnesshigh")
    assert any(v for values in plain.values() for v in values)  # the scripted judge finds errors
    assert doubled == {system: [2 * v for v in values] for system, values in plain.items()}
    # -S overrides the config file; a wrong name is one line naming the judge and its settings
    from tests.service.test_judging import cli_config

    for given, expected in (((), "high"), (("-S", "strictness=low"), "low")):
        chosen = cli_config(monkeypatch, tmp_path, "--program", strict.name, "--config", str(config), *given)
        assert chosen.settings.strictness == expected
    wrong = CliRunner().invoke(app, ["mt", "evaluate", "--data", str(data), "--lp", "en-de", "--lm", "openai/judge",
                                     "--program", strict.name, "-S", "strict=high", "--no-track"])
    assert wrong.exit_code != 0
    assert str(wrong.exception) == "-S strict=high: GEMBA-STRICT has no setting 'strict' (its settings: strictness)"


def test_the_scorer_takes_its_settings(strict, served):
    from tribunal.scorers import MQMJudge

    row = {"inputs": {"source": "The bridge will reopen next month.", "source_lang": "English",
                      "target_lang": "German"}, "outputs": "Die Brücke wird wieder eröffnen nächsten Monat."}
    values = {}
    for strictness in ("low", "high"):
        judge = MQMJudge(program=strict.name, lm="openai/judge", api_base=served, api_key_env=KEY_ENV, cache=False,
                         settings={"strictness": strictness})
        assert judge.evaluate_config("en-de").settings.strictness == strictness
        feedback = judge(**row)
        assert feedback.error is None, feedback.error
        values[strictness] = feedback.value
    assert values["low"] and values["high"] == 2 * values["low"]


def test_the_pyfunc_model_of_an_export_keeps_its_setting(strict, served, tmp_path):
    import pandas as pd

    from tribunal.data.program_export import export_document, write_export
    from tribunal.optimizers.judge_model import TunedJudge
    from tribunal.optimizers.program_settings import build_configured

    frame = pd.DataFrame([{"source": "The bridge will reopen next month.", "source_lang": "English",
                           "target_lang": "German", "translation": "Die Brücke wird wieder eröffnen nächsten Monat."}])
    params = {"lm": "openai/judge", "api_base": served, "api_key_env": KEY_ENV, "cache": False}
    score = {}
    for strictness in ("low", "high"):
        config = {"strictness": strictness}
        path = write_export(export_document(build_configured(strict.name, config), strict.name, config, {}),
                            tmp_path / f"{strictness}.json")
        model = TunedJudge()
        model.load_context(SimpleNamespace(artifacts={"program": str(path)}))
        judged = model.predict(None, frame, params)
        (built, _), = model._built.values()
        assert built.settings.strictness == strictness and f"|settings:strictness={strictness}|" in \
            built.config_signature()
        assert json.loads(judged["errors"][0])
        score[strictness] = judged["score"][0]
    assert score["low"] and score["high"] == 2 * score["low"]

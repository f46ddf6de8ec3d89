"""Options that landed with issue 42 and 45, each through its command: ``mt evaluate --server-slots``,
``optimize --max-cost`` on an unpriced model, ``mt meta-eval --task error-free --gold-threshold``."""

from __future__ import annotations

import pandas as pd
import pytest
from typer.testing import CliRunner

from tests.eval.mt.helpers import KEY_ENV, SECRET, wmt23
from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tribunal.cli import app


def test_server_slots_bounds_what_reaches_the_server(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "cache"))
    with loopback_server(synthetic_judge, latency=0.05) as (api_base, state):
        result = CliRunner().invoke(app, [
            "mt", "evaluate", "--data", str(wmt23()), "--lp", "zh-en", "--lm", "openai/loopback-judge",
            "--api-base", api_base, "--api-key-env", KEY_ENV, "--limit", "6", "--program", "gemba-mqm",
            "--concurrency", "4", "--server-slots", "1", "--out", str(tmp_path / "out"), "--no-track"])
    assert result.exit_code == 0, result.output
    assert len(state.hits) == 6 and "server:" in result.output and "1 request at once" in result.output


def test_a_cost_cap_on_an_unpriced_model_is_refused_before_any_call(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    with loopback_server(synthetic_judge) as (api_base, state):
        result = CliRunner().invoke(app, [
            "optimize", "--program", "gemba-mqm", "--optimizer", "labeled", "--train", "mqm-ted:en-de:0-8",
            "--dev", "mqm-ted:en-de:200-204", "--lm", "openai/loopback-judge", "--api-base", api_base,
            "--api-key-env", KEY_ENV, "--max-cost", "0.01", "--out", str(tmp_path / "tuned.json"), "--no-track"])
    # CliRunner sees tribunal's UserError itself (the entry point turns it into one line and exit 2)
    assert result.exit_code != 0 and "--max-cost" in str(result.exception) and "--max-calls" in str(result.exception)
    assert state.hits == [] and not (tmp_path / "tuned.json").exists()


def test_error_free_task_through_the_command_line(tmp_path, monkeypatch):
    campaign = wmt23().parent / "esa-wmt23"
    if not campaign.is_dir():
        pytest.skip(f"{campaign}: the ESA campaign is not in TRIBUNAL_DATA")
    monkeypatch.chdir(tmp_path)
    tables = {}
    for threshold in ("85", "70"):
        out = tmp_path / f"error-free-{threshold}.tsv"
        result = CliRunner().invoke(app, [
            "mt", "meta-eval", "--data", str(wmt23()), "--task", "error-free", "--human", "esa", "--human-dir",
            str(campaign), "--gold-threshold", threshold, "--lp", "en-de", "--output", str(out), "--no-track"])
        assert result.exit_code == 0, result.output
        tables[threshold] = pd.read_csv(out, sep="\t", comment="#")  # a first line says the gold and its rate
    assert "ESA-2" in set(tables["85"]["detector"])  # the rater-vs-rater ceiling beside the others
    assert not tables["85"]["mcc"].equals(tables["70"]["mcc"])  # the gold rule's threshold is applied

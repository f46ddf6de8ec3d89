"""GEMBA-ESA and MQM-APE tuned by ``tribunal optimize`` on TED MQM, exported with ``tribunal export``,
loaded back and run by ``tribunal mt evaluate``, all offline.

The scripted task LM (:mod:`tests.optimizers.mqm_task`) answers like the human annotator only when
the prompt carries demos, so "tuned beats untuned on dev" needs the TED labels to have become demos
of the predictors that annotate (ESA's spans and score, APE's evaluator).
"""

from __future__ import annotations

import dspy
import pytest
from typer.testing import CliRunner

from tests.support.injected_engine import use_engine
from tests.optimizers.mqm_task import DemoGatedEngine
from tribunal.cli import app
from tribunal.eval.tracking.mlflow_run import TrackingSettings
from tribunal.data.program_export import read_export
from tribunal.optimizers.program_loader import load_program
from tribunal.optimizers.optimize_job import OptimizeRequest, run_optimize
from tribunal.programs.mqm.scoring import esa_from_mqm
from tribunal.signatures.mqm.esa_spans import ESAError

ENGINE = "tests.optimizers.mqm_task:engine"
TRAIN, DEV = "mqm-ted:en-de:0-40", "mqm-ted:en-de:200-220"


def dev_item() -> dict:
    """The inputs of a TED dev item (the gated engine answers as the annotator only for TED items)."""
    from tribunal.optimizers.training_data import load_training_data

    example = load_training_data(DEV).examples[0]
    return {name: example[name] for name in ("source", "translation", "source_lang", "target_lang")}


@pytest.fixture
def scripted_engine(monkeypatch, ted_en_de):
    use_engine(monkeypatch, ENGINE)


def optimize_export_and_evaluate(program, tmp_path, monkeypatch, mlflow_uri, wmt23_root):
    """``optimize`` -> ``export RUN`` -> ``mt evaluate --program FILE``; returns the export's document."""
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    out = tmp_path / f"{program}.json"
    result = runner.invoke(app, ["optimize", "--program", program, "--optimizer", "labeled", "--budget", "3",
                                 "--train", TRAIN, "--dev", DEV, "--lm", "openai/judge", "--threads", "2",
                                 "--out", str(out), "--tracking-uri", mlflow_uri])
    assert result.exit_code == 0, (result.output, result.exception)
    document = read_export(out)
    metadata = document["metadata"]
    assert metadata["dev_score"] > metadata["dev_score_untuned"] + 0.2, metadata

    exported = tmp_path / f"{program}-exported.json"
    result = runner.invoke(app, ["export", metadata["run_id"], "--out", str(exported), "--tracking-uri", mlflow_uri])
    assert result.exit_code == 0, (result.output, result.exception)
    assert read_export(exported) == document

    from tests.support.loopback import loopback_server
    from tests.support.mqm_fakes import synthetic_judge

    monkeypatch.setenv("TRIBUNAL_LOOPBACK_KEY", "sk-loopback-optimize-esa-ape")
    with loopback_server(synthetic_judge) as (api_base, _state):
        result = runner.invoke(app, ["mt", "evaluate", "--data", str(wmt23_root), "--lp", "en-de",
                                     "--lm", "openai/judge", "--api-base", api_base,
                                     "--api-key-env", "TRIBUNAL_LOOPBACK_KEY", "--limit", "2",
                                     "--program", str(exported), "--out", str(tmp_path / "eval"), "--no-track"])
    assert result.exit_code == 0, (result.output, result.exception)
    assert "scored 2, unscored 0" in result.output and f"prog:{program}|tuned:" in result.output
    return exported, document


def test_gemba_esa_labeled_export_and_evaluate(tmp_path, monkeypatch, mlflow_uri, scripted_engine, wmt23_root):
    exported, document = optimize_export_and_evaluate("gemba-esa", tmp_path, monkeypatch, mlflow_uri, wmt23_root)
    program, _ = load_program(exported, expected_name="gemba-esa")
    spans, scores = program.annotate.demos, program.rate.demos
    assert len(spans) == 3 and all(isinstance(e, ESAError) or "span" in e for d in spans for e in d["errors"])
    assert len(scores) == 3 and all(0 <= d["score"] <= 100 and "errors" in d for d in scores)
    engine = DemoGatedEngine()
    with dspy.context(lm=dspy.LM("openai/judge", engine=engine, cache=False)):
        out = program(**dev_item())
    assert engine.names() == ["ESASpans", "ESAScore"] and 0 <= out.score <= 100
    assert engine.with_demos == 2  # both loaded predictors sent their demos (the gate saw them)


def test_mqm_ape_labeled_export_and_evaluate(tmp_path, monkeypatch, mlflow_uri, scripted_engine, wmt23_root):
    exported, document = optimize_export_and_evaluate("mqm-ape", tmp_path, monkeypatch, mlflow_uri, wmt23_root)
    program, _ = load_program(exported, expected_name="mqm-ape")
    assert len(program.evaluate.demos) == 3 and all("errors" in d for d in program.evaluate.demos)
    assert program.post_edit.demos == [] and program.verify.demos == []  # no human label for a post-edit
    engine = DemoGatedEngine()
    with dspy.context(lm=dspy.LM("openai/judge", engine=engine, cache=False)):
        program(**dev_item())
    assert engine.names()[0] == "GembaMQM" and engine.with_demos == 1  # the evaluator sent its demos


def test_ablations_are_settings_kept_in_the_export(tmp_path, scripted_engine):
    request = OptimizeRequest(program="mqm-ape", settings={"ablate": "verifier"}, optimizer="labeled", budget=2,
                              train=TRAIN, dev=DEV, lm="openai/judge", threads=2, out=tmp_path / "ape.json")
    result = run_optimize(request, TrackingSettings(enabled=False))
    assert result.tuned.score > result.untuned.score and result.tuned.unscored == 0
    assert "|set:ablate=verifier|" in result.signature
    program, document = load_program(result.out, expected_name="mqm-ape")
    assert document["program"]["config"] == {"ablate": ["verifier"]}
    assert [path for path, _ in program.named_predictors()] == ["evaluate", "post_edit"]

    request = OptimizeRequest(program="gemba-esa", settings={"ablate": "spans"}, optimizer="labeled", budget=2,
                              train=TRAIN, dev=DEV, lm="openai/judge", threads=2, out=tmp_path / "esa.json")
    result = run_optimize(request, TrackingSettings(enabled=False))
    assert result.tuned.score > result.untuned.score and result.tuned.unscored == 0
    program, document = load_program(result.out, expected_name="gemba-esa")
    assert [path for path, _ in program.named_predictors()] == ["rate"] and len(program.rate.demos) == 2


def test_esa_score_label_is_the_human_mqm_score_on_esas_scale():
    assert (esa_from_mqm(0), esa_from_mqm(-1), esa_from_mqm(-5), esa_from_mqm(-25), esa_from_mqm(-40)) == \
        (100, 96, 80, 0, 0)

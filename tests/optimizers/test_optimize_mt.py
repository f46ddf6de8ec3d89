"""``tribunal optimize`` on MT judges, end to end and offline, on TED MQM train/dev slices.

The scripted task LM (:mod:`tests.optimizers.mqm_task`) answers like the human annotator only when
the prompt carries demos, so the tuned program can beat the untuned one on dev only if the
labelled TED examples really became demos its annotating predictors use.
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

ENGINE = "tests.optimizers.mqm_task:engine"
TRAIN, DEV = "mqm-ted:en-de:0-40", "mqm-ted:en-de:200-220"


@pytest.fixture
def scripted_engine(monkeypatch, ted_en_de):
    use_engine(monkeypatch, ENGINE)


def test_gemba_labeled_from_the_command_line(tmp_path, monkeypatch, mlflow_uri, scripted_engine, wmt23_root):
    from mlflow.tracking import MlflowClient

    monkeypatch.chdir(tmp_path)
    out = tmp_path / "gemba.json"
    runner = CliRunner()
    result = runner.invoke(app, ["optimize", "--program", "gemba-mqm", "--optimizer", "labeled", "--budget", "3",
                                 "--train", TRAIN, "--dev", DEV, "--lm", "openai/judge", "--threads", "2",
                                 "--out", str(out), "--tracking-uri", mlflow_uri])
    assert result.exit_code == 0, (result.output, result.exception)

    metadata = read_export(out)["metadata"]
    assert metadata["dev_score"] > metadata["dev_score_untuned"] + 0.2, metadata
    client = MlflowClient(tracking_uri=mlflow_uri)
    parent = client.get_run(metadata["run_id"])
    assert parent.data.params["knob.labels"] == "gemba-mqm" and parent.data.params["train"] == TRAIN
    improvement = metadata["dev_score"] - metadata["dev_score_untuned"]
    assert parent.data.metrics["dev_improvement"] == pytest.approx(improvement)
    children = client.search_runs([parent.info.experiment_id], f"tags.mlflow.parentRunId = '{parent.info.run_id}'")
    assert len(children) == 1 and children[0].data.params["demos"] == "3"  # the compiled program is the trial

    program, _ = load_program(out, expected_name="gemba-mqm")
    assert len(program.annotate.demos) == 3 and all("errors" in d for d in program.annotate.demos)
    engine = DemoGatedEngine()
    with dspy.context(lm=dspy.LM("openai/judge", engine=engine, cache=False)):
        program(source="Hello.", translation="Hallo.", source_lang="English", target_lang="German")
    assert len(engine.calls) == 1  # the loaded demos reach the prompt (the gate saw demos)

    _evaluate_export(runner, out, wmt23_root, tmp_path, monkeypatch)


def _evaluate_export(runner, export, wmt23_root, tmp_path, monkeypatch):
    """``tribunal mt evaluate --program FILE`` runs the tuned export (loopback server, 2 items)."""
    from tests.support.loopback import loopback_server
    from tests.support.mqm_fakes import synthetic_judge

    monkeypatch.setenv("TRIBUNAL_LOOPBACK_KEY", "sk-loopback-optimize-mt")
    with loopback_server(synthetic_judge) as (api_base, _state):
        result = runner.invoke(app, ["mt", "evaluate", "--data", str(wmt23_root), "--lp", "en-de",
                                     "--lm", "openai/judge", "--api-base", api_base,
                                     "--api-key-env", "TRIBUNAL_LOOPBACK_KEY", "--limit", "2",
                                     "--program", str(export), "--out", str(tmp_path / "eval"), "--no-track"])
    assert result.exit_code == 0, (result.output, result.exception)
    assert "scored 2, unscored 0" in result.output and "prog:gemba-mqm|tuned:" in result.output


def test_gemba_bootstrap_uses_labelled_teacher_demos(tmp_path, scripted_engine):
    result = run_optimize(OptimizeRequest(program="gemba-mqm", optimizer="bootstrap", budget=2, train=TRAIN,
                                          dev=DEV, lm="openai/judge", threads=2, out=tmp_path / "boot.json"),
                          TrackingSettings(enabled=False))
    assert result.tuned.score > result.untuned.score + 0.2 and result.tuned.unscored == 0
    demos = read_export(result.out)["state"]["annotate"]["demos"]
    assert any(d.get("augmented") for d in demos)  # traces the labelled teacher produced passed the metric
    assert len(demos) == 2 and all("errors" in d for d in demos)


def test_mmad_labeled_with_settings(tmp_path, scripted_engine):
    request = OptimizeRequest(program="mmad", settings={"ablate": "stage2"}, optimizer="labeled", budget=2,
                              train=TRAIN, dev=DEV, lm="openai/judge", threads=2, out=tmp_path / "mmad.json")
    result = run_optimize(request, TrackingSettings(enabled=False))
    assert result.tuned.score > result.untuned.score + 0.1 and result.tuned.unscored == 0
    assert "|set:ablate=stage2,preset=paper|" in result.signature
    program, document = load_program(result.out, expected_name="mmad")
    assert document["program"]["config"] == {"preset": "paper", "ablate": ["stage2"]}
    paths = [path for path, _ in program.named_predictors()]
    assert paths == ["accuracy", "fluency", "style", "terminology", "judge"]  # rebuilt without the debate
    assert all(len(getattr(program, d).demos) == 2 for d in ("accuracy", "fluency", "style", "terminology"))
    assert program.judge.demos == []


def test_eaprompt_labeled(tmp_path, scripted_engine):
    result = run_optimize(OptimizeRequest(program="eaprompt", optimizer="labeled", budget=2, train=TRAIN, dev=DEV,
                                          lm="openai/judge", threads=2, out=tmp_path / "ea.json"),
                          TrackingSettings(enabled=False))
    assert result.tuned.score > result.untuned.score + 0.05 and result.tuned.unscored == 0
    demos = read_export(result.out)["state"]["analyse"]["demos"]
    assert len(demos) == 2 and all({"analysis", "major_errors", "minor_errors"} <= set(d) for d in demos)

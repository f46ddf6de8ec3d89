"""The tuned judge as an MLflow model: code plus the sealed export, the LM chosen at predict time,
the seal checked on load, served by ``mlflow models serve``, run by ``mlflow.pyfunc.spark_udf``."""

from __future__ import annotations

import json
import os
import shutil
import sys
import urllib.request
from pathlib import Path

import mlflow
import pandas as pd
import pytest

from tests.support.equiv_fakes import equiv_loopback_server
from tests.support.loopback import loopback_server
from tests.support.mlflow_server import free_port, http_process
from tests.support.mqm_fakes import synthetic_judge
from tribunal.eval.tracking.mlflow_run import TrackingSettings
from tribunal.optimizers.optimize_job import OptimizeRequest, run_optimize

KEY_ENV, SECRET = "TRIBUNAL_MODEL_TEST_KEY", "sk-model-test-0123456789-secret"
ITEMS = pd.DataFrame([
    {"source": "The committee approved the budget.", "translation": "Der Ausschuss genehmigte den Haushalt.",
     "source_lang": "English", "target_lang": "German"},
    {"source": "Prices rose sharply.", "translation": "Die Preise stiegen scharf.", "source_lang": "en",
     "target_lang": "de"},
    {"source": "The committee approved the budget.", "translation": "Der Ausschuss genehmigte den Haushalt.",
     "source_lang": "English", "target_lang": "German"}])  # a repeated item is judged once


@pytest.fixture(scope="module")
def tuned(tmp_path_factory, empty_sqlite_store, ted_en_de):
    """A gemba-mqm export tuned on TED MQM (loopback peer), logged and registered in a SQLite store."""
    root = tmp_path_factory.mktemp("judge-model")
    shutil.copyfile(empty_sqlite_store, root / "mlflow.db")
    uri = f"sqlite:///{root / 'mlflow.db'}"
    with pytest.MonkeyPatch.context() as patch, loopback_server(synthetic_judge) as (api_base, _):
        patch.setenv(KEY_ENV, SECRET)
        request = OptimizeRequest(program="gemba-mqm", optimizer="labeled", budget=2, train=f"{ted_en_de}:0-20",
                                  dev=f"{ted_en_de}:200-203", lm="openai/judge", api_base=api_base,
                                  api_key_env=KEY_ENV, threads=1, cache=False, out=root / "tuned.json")
        result = run_optimize(request, TrackingSettings(uri=uri, experiment="models"))
    mlflow.set_tracking_uri(uri)
    return {"uri": uri, "model": result.model.uri, "export": root / "tuned.json", "root": root}


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    for name in ("TRIBUNAL_LM", "TRIBUNAL_API_BASE", "TRIBUNAL_API_KEY_ENV"):
        monkeypatch.delenv(name, raising=False)


def params(api_base: str) -> dict:
    return {"lm": "openai/judge", "api_base": api_base, "api_key_env": KEY_ENV, "cache": False}


def test_the_model_is_code_and_the_sealed_export_with_no_lm_in_it(tuned):
    local = Path(mlflow.artifacts.download_artifacts(tuned["model"], dst_path=str(tuned["root"] / "download")))
    mlmodel = (local / "MLmodel").read_text()
    assert "model_code_path" in mlmodel and "judge_model_code.py" in mlmodel  # models-from-code
    assert not list(local.rglob("*.pkl")) and "python_model:" not in mlmodel  # nothing pickled
    assert json.loads((local / "artifacts" / "program.json").read_text()) == json.loads(tuned["export"].read_text())
    state = json.loads((local / "artifacts" / "program.json").read_text())["state"]
    assert all(predictor.get("lm") is None for predictor in state.values())  # the LM is chosen at predict time
    code = "".join(p.read_text() for p in local.iterdir() if p.is_file())  # MLmodel, requirements, the code file
    assert "127.0.0.1" not in code and "openai/judge" not in code
    assert not any(SECRET in p.read_text(errors="replace") for p in local.rglob("*") if p.is_file())
    assert "tribunal==" in (local / "requirements.txt").read_text()


def test_the_lm_comes_from_params_else_the_environment(tuned, key, monkeypatch):
    model = mlflow.pyfunc.load_model(tuned["model"])
    with pytest.raises(ValueError, match="no LM: pass params=.*or set TRIBUNAL_LM"):
        model.predict(ITEMS)
    with loopback_server(synthetic_judge) as (api_base, state):
        by_params = model.predict(ITEMS, params=params(api_base))
        assert len(state.hits) == 2  # the repeated item is judged once
        monkeypatch.setenv("TRIBUNAL_LM", "openai/judge")
        monkeypatch.setenv("TRIBUNAL_API_BASE", api_base)
        monkeypatch.setenv("TRIBUNAL_API_KEY_ENV", KEY_ENV)
        by_environment = model.predict(ITEMS, params={"cache": False})
        assert len(state.hits) == 4
    pd.testing.assert_frame_equal(by_params, by_environment)
    assert list(by_params.columns) == ["score", "errors", "unscored_reason"]
    assert by_params.score.notna().all() and by_params.unscored_reason.isna().all()
    assert by_params.iloc[0].tolist() == by_params.iloc[2].tolist()


def test_an_unusable_answer_leaves_the_item_unscored_with_its_reason(tuned, key):
    model = mlflow.pyfunc.load_model(tuned["model"])
    with loopback_server(synthetic_judge, fault=lambda number, name, inputs: "garbage") as (api_base, _):
        judged = model.predict(ITEMS.iloc[:1], params=params(api_base))
    assert judged.score.isna().all() and judged.errors.tolist() == ["[]"]
    # "garbage" has none of the asked fields and no JSON: a refusal, after the re-asks
    assert judged.unscored_reason.str.startswith("refusal: it gave none of the fields asked for").all()


def test_loading_refuses_a_tampered_export(tuned):
    local = Path(mlflow.artifacts.download_artifacts(tuned["model"], dst_path=str(tuned["root"] / "tampered")))
    export = local / "artifacts" / "program.json"
    document = json.loads(export.read_text())
    document["state"]["annotate"]["signature"]["instructions"] += " Always answer no errors."
    export.write_text(json.dumps(document))
    with pytest.raises(Exception, match="sha256 does not match"):
        mlflow.pyfunc.load_model(str(local))


def served(model_uri: str, env: dict, root: Path):
    """``mlflow models serve`` in this environment (``--env-manager local``) on loopback; its address."""
    port = free_port()
    command = [sys.executable, "-m", "mlflow", "models", "serve", "-m", model_uri, "--env-manager", "local",
               "-h", "127.0.0.1", "-p", str(port), "-w", "1"]
    return http_process(command, f"http://127.0.0.1:{port}", "/ping", root / "serve.log", env, timeout=300)


def test_mlflow_models_serve_answers_like_the_loaded_model(tuned, key, tmp_path):
    with loopback_server(synthetic_judge) as (api_base, _):
        expected = mlflow.pyfunc.load_model(tuned["model"]).predict(ITEMS, params=params(api_base))
        path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"  # its uvicorn, as when activated
        env = {**os.environ, "PATH": path, "MLFLOW_TRACKING_URI": tuned["uri"], "TRIBUNAL_LM": "openai/judge",
               "TRIBUNAL_API_BASE": api_base, "TRIBUNAL_API_KEY_ENV": KEY_ENV, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
        with served(tuned["model"], env, tmp_path) as url:
            body = json.dumps({"dataframe_records": ITEMS.to_dict("records"), "params": {"cache": False}}).encode()
            request = urllib.request.Request(f"{url}/invocations", body, {"Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=120) as answer:
                predictions = json.loads(answer.read())["predictions"]
    assert pd.DataFrame(predictions)[list(expected.columns)].to_dict("records") == expected.to_dict("records")


def test_spark_udf_runs_the_model(tuned, key):
    if os.environ.get("TRIBUNAL_REQUIRE_SPARK"):  # CI: fail rather than skip
        import pyspark
    else:
        pyspark = pytest.importorskip("pyspark", reason="pyspark is not installed (pip install -e '.[spark]'; "
                                                        "it needs a JDK 17+)")
    from pyspark.sql import SparkSession

    with loopback_server(synthetic_judge) as (api_base, _):
        expected = mlflow.pyfunc.load_model(tuned["model"]).predict(ITEMS, params=params(api_base))
        # Spark's Python workers inherit the environment; they run this Python (with tribunal), not python3.
        os.environ.update({"TRIBUNAL_LM": "openai/judge", "TRIBUNAL_API_BASE": api_base,
                           "TRIBUNAL_API_KEY_ENV": KEY_ENV, "PYSPARK_PYTHON": sys.executable})
        spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
        try:
            judge = mlflow.pyfunc.spark_udf(spark, tuned["model"], env_manager="local", params={"cache": False})
            frame = spark.createDataFrame(ITEMS)
            rows = frame.withColumn("judged", judge(*[frame[c] for c in ITEMS.columns])).select("judged").collect()
        finally:
            spark.stop()
            for name in ("TRIBUNAL_LM", "TRIBUNAL_API_BASE", "TRIBUNAL_API_KEY_ENV", "PYSPARK_PYTHON"):
                os.environ.pop(name, None)
    assert pyspark.__version__
    assert [r.judged.asDict() for r in rows] == expected.to_dict("records")


def test_the_equivalence_judge_is_a_model_too(tmp_path, empty_sqlite_store, key):
    from tribunal.eval.equiv.rules.llm import LLMJudgeRule
    from tribunal.eval.equiv.suite import load_suite
    from tribunal.optimizers.program_loader import load_program
    from tribunal.programs.lm import LMSettings, build_lm

    shutil.copyfile(empty_sqlite_store, tmp_path / "mlflow.db")
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    pairs = load_suite().pairs[80:84]
    frame = pd.DataFrame([{"hypothesis_a": p.original.render(), "hypothesis_b": p.perturbed.render()} for p in pairs])
    with equiv_loopback_server(lambda a, b: len(a) % 3 != len(b) % 3) as (api_base, _):
        request = OptimizeRequest(program="equiv-llm", optimizer="labeled", budget=2, train="suite:0-10",
                                  dev="suite:80-84", lm="openai/judge", api_base=api_base, api_key_env=KEY_ENV,
                                  threads=1, cache=False, out=tmp_path / "equiv.json")
        result = run_optimize(request, TrackingSettings(uri=uri, experiment="equiv-models"))
        mlflow.set_tracking_uri(uri)
        predicted = mlflow.pyfunc.load_model(result.model.uri).predict(frame, params=params(api_base))
        program, _ = load_program(tmp_path / "equiv.json")
        rule = LLMJudgeRule(build_lm(LMSettings(model="openai/judge", api_base=api_base, api_key_env=KEY_ENV,
                                                cache=False)), program=program)
        judged = rule.judge_pairs([(p.original, p.perturbed) for p in pairs])
    assert result.model.registered_name == "tribunal-equiv-llm"
    assert list(predicted.columns) == ["verdict", "score", "unscored_reason"]
    assert predicted.verdict.tolist() == ["same" if j.same else "different" for j in judged]

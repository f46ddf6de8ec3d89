"""``tribunal demo`` with no LM configured: the whole loop on the bundled local model, through the real entry point.

The offline steps are cut down (BLEU on zh-en, TF-IDF alone), and M-MAD and the equivalence judge
are left out (this tier runs both on their own, and they are the demo's longest LM steps); the loop
runs as a user gets it: judge, tune with ``labeled``, export, judge with the tuned program, compare. Asserted: exit 0, the model
answered every LM step (HTTP 200s at the counting proxy, the server alive and never restarted), both
judge runs scored items with answers the provider gave, the optimize run, the export and the
comparison are there, and the demo says what a 135M model's numbers mean. The demo's output shown on
docs/getting-started/first-run.md (its ``test: output`` block, taken from a full run) is checked
against this run line by line, up to numbers and run ids (the model's numbers differ between runs).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.docs.blocks import read_blocks
from tests.support.cli import run_cli
from tribunal.programs.local_models import QUALITY_NOTICE

pytestmark = [pytest.mark.real_model, pytest.mark.slow]

FIRST_RUN = Path(__file__).resolve().parents[2] / "docs" / "getting-started" / "first-run.md"


def _shape(text: str) -> str:
    """A line up to what differs between runs: run ids, numbers, a rule's width."""
    text = re.sub(r"\b[0-9a-f]{32}\b", "RUN", text.replace("─", ""))
    return " ".join(re.sub(r"\d+(?:[.,]\d+)*", "N", text).split())


def shown_lines_missing(shown: str, output: str) -> list[str]:
    """The shown lines (``...`` excepted) whose shape no line of ``output`` has."""
    real = {_shape(line) for line in output.splitlines()}
    return [line for line in shown.splitlines() if line.strip() and line.strip() != "..." and _shape(line) not in real]


def test_demo_runs_the_whole_loop_on_the_local_model(local_model, model_report, tmp_path, capsys, monkeypatch,
                                                     empty_sqlite_store, wmt23_root):
    from mlflow.tracking import MlflowClient

    import tribunal.cli.demo as demo
    import tribunal.eval.equiv.rules.embedding as embedding
    import tribunal.eval.meta.meta_eval_job as meta_eval_job
    from tribunal.cli.demo_pages import SMALL_MODEL_NOTE
    from tribunal.data.program_export import read_export

    computed = meta_eval_job.run_meta_eval
    monkeypatch.setattr(meta_eval_job, "run_meta_eval",
                        lambda data, *a, **k: computed(data, ["BLEU"], ["zh-en"], *a[2:], **k))
    monkeypatch.setattr(embedding, "local_minilm_available", lambda: False)
    monkeypatch.setattr(demo, "_mmad_demo", lambda *a, **k: None)
    monkeypatch.setattr(demo, "equiv_judge_step", lambda *a, **k: None)
    for name in ("TRIBUNAL_LM", "TRIBUNAL_API_BASE", "TRIBUNAL_API_KEY_ENV"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TRIBUNAL_DATA", str(wmt23_root.parent))
    monkeypatch.chdir(tmp_path)
    shutil.copy(empty_sqlite_store, tmp_path / "mlflow.db")  # the default store, as on the docs page
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    mark = local_model.mark()
    outcome = run_cli(capsys, "demo", "--no-cache")  # out: tribunal-out/demo, as on the docs page
    assert outcome.status == 0, (outcome.err[-3000:], outcome.out[-3000:])
    assert "Traceback" not in outcome.err + outcome.out and "step failed" not in outcome.err
    assert "connection error" not in (outcome.out + outcome.err).lower()
    answered = [e for e in local_model.since(mark) if e.status == 200]
    assert answered, "the local model never answered during the demo"
    assert local_model.server.running() and not local_model.server.deaths
    assert QUALITY_NOTICE in outcome.err and SMALL_MODEL_NOTE in outcome.out

    client = MlflowClient(tracking_uri=uri)
    runs = client.search_runs([client.get_experiment_by_name("tribunal-demo").experiment_id], max_results=100)
    judged = [r for r in runs if r.data.params.get("program") == "gemba-mqm" and "scored" in r.data.metrics]
    assert len(judged) == 2, [r.info.run_name for r in runs]
    for run in judged:  # each judge run scored items with answers the model gave (no cache: --no-cache)
        assert run.data.metrics["lm_calls_paid"] >= 1 and run.data.metrics["scored"] >= 1, run.data.metrics
    optimize = [r for r in runs if r.data.params.get("optimizer") == "labeled" and not r.data.tags.get("mlflow.parentRunId")]
    assert len(optimize) == 1
    document = read_export(tmp_path / "tribunal-out" / "demo" / "loop" / "tuned.json")
    assert document["metadata"]["run_id"] == optimize[0].info.run_id
    compared = outcome.out.split("9. The untuned and the tuned judge compared", 1)[1]
    assert all(run.info.run_id in compared for run in judged)
    shown = [b for b in read_blocks(FIRST_RUN) if b.mark == "output"]
    assert shown, f"{FIRST_RUN}: no output block of the demo"
    missing = shown_lines_missing(shown[0].code, outcome.out + outcome.err)
    assert not missing, f"{shown[0].where}: shown but not printed by the demo:\n" + "\n".join(missing)
    calls = sum(r.data.metrics["lm_calls_paid"] for r in judged)
    model_report["demo (whole loop, bundled model)"] = {
        "calls": len(answered), "judge_calls": calls,
        "scored": [int(r.data.metrics["scored"]) for r in judged],
        "dev": [line for line in outcome.out.splitlines() if line.startswith("dev score")]}

"""``tribunal demo``'s whole loop on a loopback OpenAI-compatible peer: judge, tune, export, judge tuned, compare.

The peer answers every MT signature deterministically (:func:`tests.support.mqm_fakes.synthetic_judge`)
and counts what it was asked, so a loop that never reached the model fails here.
"""

from __future__ import annotations

import json
import re
import shutil

import pytest

from tests.support.cli import run_cli
from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge

pytestmark = pytest.mark.slow

KEY_ENV, SECRET = "TRIBUNAL_DEMO_LOOP_KEY", "sk-demo-loop-0123456789"


@pytest.fixture
def quick_demo(monkeypatch, tmp_path, wmt23_root):
    """The demo's offline steps cut down (BLEU on zh-en, TF-IDF alone) and M-MAD left out: the loop is the point."""
    import tribunal.cli.demo as demo
    import tribunal.eval.equiv.rules.embedding as embedding
    import tribunal.eval.meta.meta_eval_job as meta_eval_job

    computed = meta_eval_job.run_meta_eval
    monkeypatch.setattr(meta_eval_job, "run_meta_eval",
                        lambda data, *a, **k: computed(data, ["BLEU"], ["zh-en"], *a[2:], **k))
    monkeypatch.setattr(embedding, "local_minilm_available", lambda: False)
    monkeypatch.setattr(demo, "_mmad_demo", lambda *a, **k: None)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TRIBUNAL_DATA", str(wmt23_root.parent))
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "dspy-cache"))
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("TRIBUNAL_API_KEY_ENV", KEY_ENV)
    monkeypatch.setenv("TRIBUNAL_LM", "openai/judge")
    return tmp_path


def _gemba_hits(state) -> int:
    return sum(1 for name, *_ in state.hits if "Gemba" in name)


def test_the_loop_tunes_exports_judges_with_the_tuned_program_and_compares(quick_demo, capsys, monkeypatch,
                                                                           empty_sqlite_store):
    from mlflow.tracking import MlflowClient

    from tribunal.data.program_export import read_export

    store = quick_demo / "mlflow.db"
    shutil.copy(empty_sqlite_store, store)
    uri = f"sqlite:///{store}"
    with loopback_server(synthetic_judge) as (api_base, state):
        monkeypatch.setenv("TRIBUNAL_API_BASE", api_base)
        outcome = run_cli(capsys, "demo", "--out", quick_demo / "demo", "--tracking-uri", uri)
    assert outcome.status == 0, outcome.err[-3000:]
    assert "step failed" not in outcome.err and "Traceback" not in outcome.err
    # the peer judged: 5 items untuned and 5 tuned (each paid, below), 10 dev items untuned and tuned
    # (two raters of one output make the same request: the cache answers the second)
    assert _gemba_hits(state) >= 20, [h[0] for h in state.hits]
    assert SECRET not in outcome.out + outcome.err

    client = MlflowClient(tracking_uri=uri)
    experiment = client.get_experiment_by_name("tribunal-demo")
    runs = client.search_runs([experiment.experiment_id], max_results=100)
    optimize = [r for r in runs if r.data.params.get("optimizer") == "labeled" and not r.data.tags.get("mlflow.parentRunId")]
    assert len(optimize) == 1, [r.info.run_name for r in runs]
    judged = [r for r in runs if r.data.params.get("program") == "gemba-mqm" and "scored" in r.data.metrics]
    assert len(judged) == 2, [r.info.run_name for r in runs]
    assert all(r.data.metrics["scored"] == 5 and r.data.metrics["lm_calls_paid"] == 5 for r in judged)
    tuned_run = [r for r in judged if "tuned:" in r.data.tags.get("tribunal.signature", "")]
    assert len(tuned_run) == 1, [r.data.tags.get("tribunal.signature") for r in judged]

    exported = quick_demo / "demo" / "loop" / "tuned.json"
    document = read_export(exported)
    assert document["program"]["name"] == "gemba-mqm"
    assert document["metadata"]["run_id"] == optimize[0].info.run_id
    assert document["sha256"][:12] in tuned_run[0].data.tags["tribunal.signature"]  # judged with that very file
    demos = json.dumps(document).count("source")
    assert demos > 0, "the tuned program carries its labelled demos"

    compared = outcome.out.split("The untuned and the tuned judge compared", 1)[1]
    for run in judged:
        assert run.info.run_id in compared, run.info.run_id
    assert re.search(r"compare-runs\?runs=\[\"\w+\",\"\w+\"\]", outcome.out)
    assert "/#/prompts" in outcome.out and "/traces" in outcome.out
    assert (quick_demo / "demo" / "loop" / "compare" / "key_metrics.png").is_file()


def test_a_failed_step_is_one_line_the_rest_goes_on_and_the_exit_says_so(quick_demo, capsys, monkeypatch):
    import tribunal.optimizers.optimize_job as optimize_job

    def broken(*args, **kwargs):
        raise RuntimeError("the optimizer broke\nacross lines")

    monkeypatch.setattr(optimize_job, "run_optimize", broken)
    with loopback_server(synthetic_judge) as (api_base, state):
        monkeypatch.setenv("TRIBUNAL_API_BASE", api_base)
        outcome = run_cli(capsys, "demo", "--out", quick_demo / "demo", "--no-track")
    assert outcome.status == 2, outcome.err[-3000:]
    failed = [line for line in outcome.err_lines if line.startswith("step failed")]
    assert failed == [f"step failed 6. tune (labeled): RuntimeError: the optimizer broke across lines (traceback in "
                      f"{quick_demo / 'demo' / 'demo-errors.log'})"], outcome.err
    assert "Traceback" in (quick_demo / "demo" / "demo-errors.log").read_text(encoding="utf-8")
    assert "step skipped 7. export: needs the tuned program (6. tune (labeled) failed)" in outcome.err
    assert "step skipped 8. judge (tuned)" in outcome.err and "step skipped 9. compare" in outcome.err
    assert outcome.err_lines[-1] == "1 step(s) failed: 6. tune (labeled) (exit status 2)"
    # the steps before and around it still ran: the meta-evaluation, the audit, the untuned judge
    assert (quick_demo / "demo" / "wmt23_meta_eval.tsv").is_file() and "scored 5, unscored 0" in outcome.out
    assert _gemba_hits(state) == 5


def test_without_tracking_the_optimizers_own_file_is_judged(quick_demo, capsys, monkeypatch):
    with loopback_server(synthetic_judge) as (api_base, state):
        monkeypatch.setenv("TRIBUNAL_API_BASE", api_base)
        outcome = run_cli(capsys, "demo", "--out", quick_demo / "demo", "--no-track")
    assert outcome.status == 0, outcome.err[-3000:]
    assert "step skipped 7. export: tracking is off (--no-track)" in outcome.err
    assert "step skipped 9. compare: tracking is off (--no-track)" in outcome.err
    assert f"8. The tuned GEMBA-MQM ({quick_demo / 'demo' / 'loop' / 'gemba-mqm-labeled.json'})" in outcome.out
    assert outcome.out.count("scored 5, unscored 0") == 2 and _gemba_hits(state) >= 20
    assert "mlflow.db" not in {p.name for p in quick_demo.iterdir()}


def test_no_lm_skips_the_loop_cleanly(tmp_path, capsys, monkeypatch, tiny_mtme):
    import tribunal.eval.equiv.rules.embedding as embedding

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TRIBUNAL_LM", raising=False)
    monkeypatch.setattr(embedding, "local_minilm_available", lambda: False)
    outcome = run_cli(capsys, "demo", "--data", tiny_mtme, "--no-lm", "--out", tmp_path / "d", "--no-track")
    assert outcome.status == 0, outcome.err
    assert "Steps 5-9 (judge, tune with labeled" in outcome.out and "step " not in outcome.err
    assert not (tmp_path / "d" / "loop").exists()

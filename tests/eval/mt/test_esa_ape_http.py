"""GEMBA-ESA and MQM-APE through ``tribunal mt evaluate`` over HTTP (loopback server), and their score
files read back by ``tribunal mt meta-eval --scores``.

A small MTME folder (en-de, 4 segments x 3 systems, every cell rated, one rater file with spans)
lets one run cover every cell, so the meta-evaluation row of the judge is complete; a second run
on the real WMT23 zh-en data checks span F1 against the human raters.
"""

from __future__ import annotations

import json
import math
import re

import pandas as pd
import pytest
from typer.testing import CliRunner

from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tests.support.small_mtme import OUTPUTS, write_small_mtme
from tribunal.cli import app

from .helpers import KEY_ENV, SECRET, wmt23


@pytest.fixture
def small_mtme(tmp_path):
    return write_small_mtme(tmp_path / "mtme")


@pytest.fixture
def env(monkeypatch, tmp_path):
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TRIBUNAL_DATA", str(wmt23().parent))  # the TED MQM demos


def evaluate(api_base, data, lp, out, program, *extra):
    args = ["mt", "evaluate", "--data", str(data), "--lp", lp, "--lm", "openai/judge", "--api-base", api_base,
            "--api-key-env", KEY_ENV, "--program", program, "--out", str(out), "--no-track", *extra]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, (result.output, result.exception)
    return result.output


def calls(output: str) -> dict[str, int]:
    """``LM calls: 18 (score 9, spans 9)`` -> ``{"total": 18, "score": 9, "spans": 9}``."""
    total, stages = re.search(r"LM calls: (\d+) \(([^)]*)\)", output).groups()
    return {"total": int(total)} | {k: int(v) for k, v in (part.rsplit(" ", 1) for part in stages.split(", "))}


def meta_eval(data, scores, tmp_path):
    table = tmp_path / "table.tsv"
    result = CliRunner().invoke(app, ["mt", "meta-eval", "--data", str(data), "--lp", "en-de", "--scores", str(scores),
                                      "--output", str(table), "--no-track"])
    assert result.exit_code == 0, (result.output, result.exception)
    return pd.read_csv(table, sep="\t").set_index("metric"), result.output


@pytest.mark.parametrize("program, name, expected", [
    ("gemba-esa", "GEMBA-ESA", lambda n, errors: {"total": 2 * n, "spans": n, "score": n}),
    ("mqm-ape", "MQM-APE", lambda n, errors: {"total": n + 2 * errors, "evaluate": n, "post_edit": errors,
                                                "verify": errors}),
])
def test_judge_over_http_writes_score_files_that_meta_eval_reads(program, name, expected, small_mtme, env, tmp_path):
    out = tmp_path / "out"
    with loopback_server(synthetic_judge) as (api_base, state):
        output = evaluate(api_base, small_mtme, "en-de", out, program, "--concurrency", "4")
    assert "scored 12, unscored 0" in output and f"prog:{program}" in output and SECRET not in output
    found = sum(len(record["transcript"][0]["errors"])
                for record in map(json.loads, (out / "transcripts.jsonl").read_text().splitlines()))
    assert calls(output) == expected(12, found) and len(state.hits) == calls(output)["total"]
    if program == "mqm-ape":
        assert found > 0  # the synthetic evaluator found errors, so post-edits and checks ran
    assert "span char_f1" in output  # spans were compared with the rater file

    table, printed = meta_eval(small_mtme, out / "metric-scores", tmp_path)
    assert name in table.index and "not scored" not in printed
    row = table.loc[name]
    assert all(math.isfinite(row[c]) for c in ("en-de_sys_pearson", "en-de_seg_pearson", "en-de_seg_acc_t"))
    seg = (out / "metric-scores" / "en-de" / f"{name}-src.seg.score").read_text().splitlines()
    assert len(seg) == 12 and all(line.split("\t")[0] in OUTPUTS for line in seg)


@pytest.mark.parametrize("program, ablate, name, stages", [
    ("gemba-esa", "spans", "GEMBA-ESA-no-spans", {"score"}),
    ("mqm-ape", "verifier", "MQM-APE-no-verifier", {"evaluate", "post_edit"}),
])
def test_ablations_over_http_are_named_and_skip_their_stage(program, ablate, name, stages, small_mtme, env, tmp_path):
    out = tmp_path / "out"
    with loopback_server(synthetic_judge) as (api_base, state):
        output = evaluate(api_base, small_mtme, "en-de", out, program, "--ablate", ablate, "--limit", "6")
    assert "scored 6, unscored 0" in output and f"ablate:{ablate}" in output
    assert set(calls(output)) - {"total"} == stages
    assert (out / "metric-scores" / "en-de" / f"{name}-src.seg.score").is_file()
    assert ("span char_f1" in output) == (program == "mqm-ape")  # ESA without its span step marks no span


def test_ablation_a_program_does_not_have_is_refused(small_mtme, env, tmp_path):
    result = CliRunner().invoke(app, ["mt", "evaluate", "--data", str(small_mtme), "--lp", "en-de", "--lm", "openai/x",
                                      "--program", "gemba-esa", "--ablate", "verifier", "--no-track"])
    assert result.exit_code != 0 and "ablate" in str(result.exception or result.output)
    result = CliRunner().invoke(app, ["mt", "evaluate", "--data", str(small_mtme), "--lp", "en-de", "--lm", "openai/x",
                                      "--program", "gemba-mqm", "--ablate", "stage2", "--no-track"])
    assert result.exit_code != 0 and "program gemba-mqm has no setting 'ablate'" in str(result.exception)


@pytest.mark.parametrize("program", ["gemba-esa", "mqm-ape"])
def test_span_f1_against_the_wmt23_raters(program, env, tmp_path, wmt23_root):
    out = tmp_path / "out"
    with loopback_server(synthetic_judge) as (api_base, _):
        output = evaluate(api_base, wmt23_root, "zh-en", out, program, "--limit", "6", "--rated-only")
    assert "scored 6, unscored 0" in output
    assert re.search(r"span char_f1: \d\.\d{4}", output) and re.search(r"span char_precision: \d\.\d{4}", output)
    assert re.search(r"span mpp_f: \d\.\d{4} \(micro MPP", output) and re.search(r"span wmt25_f: \d\.\d{4}", output)
    records = [json.loads(line) for line in (out / "errors.jsonl").read_text().splitlines()]
    assert all(e["start"] is not None for r in records for e in r["errors"])  # spans located in the translation


def test_only_mqm_scale_scores_are_compared_with_the_human_mqm_distribution(env, tmp_path, wmt23_root):
    from tribunal.eval.mt.job import run_evaluation
    from tribunal.eval.tracking.mlflow_run import TrackingSettings

    from .helpers import loopback_config

    with loopback_server(synthetic_judge) as (api_base, _):
        esa = run_evaluation(loopback_config(api_base, tmp_path / "esa", program="gemba-esa", limit=4, rated_only=True),
                             TrackingSettings(enabled=False))
        ape = run_evaluation(loopback_config(api_base, tmp_path / "ape", program="mqm-ape", limit=4, rated_only=True),
                             TrackingSettings(enabled=False))
    assert esa.summary["scored"] == ape.summary["scored"] == 4
    assert esa.scores == ((), ())  # a 0-100 score is no MQM score: no distribution plot against the human one
    judge, human = ape.scores
    assert len(judge) == len(human) >= 4 and max(judge) <= 0

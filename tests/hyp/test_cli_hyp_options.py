"""Options of ``hyp run`` / ``hyp divergence`` checked by their effect."""

from __future__ import annotations

import csv

from typer.testing import CliRunner

from tests.hyp.constructed import depth_split_runs, store
from tests.support.dspy_cache import dspy_cache_off
from tests.support.equiv_fakes import equiv_loopback_server
from tribunal.cli import app

runner = CliRunner()


def _divergence(tmp_path, *extra):
    out = tmp_path / f"out{len(list(tmp_path.glob('out*')))}"
    result = runner.invoke(app, ["hyp", "divergence", str(tmp_path), "--no-track", "--out", str(out), *extra],
                           env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    with open(out / "divergence.tsv", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def test_judge_temperature_reaches_the_engagement_judge(tmp_path, monkeypatch):
    import tribunal.eval.hyp.run_job as run_job

    seen = {}

    def capture(instances, settings, lm, public, out, tracking, judge_lm, judge_public, cap=None):
        seen.update(judge=judge_lm)
        return run_job.RunJobResult([], 0, 0, "sig", None)

    monkeypatch.setattr(run_job, "run_workflow", capture)
    result = runner.invoke(app, ["hyp", "run", "--lm", "openai/gen", "--judge-lm", "openai/judge",
                                 "--judge-temperature", "0.4", "--no-track", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert seen["judge"].kwargs["temperature"] == 0.4


FIRST_STEPS = {"P": "dietary sodium retention", "Q": "renal artery stenosis", "R": "aldosterone excess",
               "S": "sympathetic nerve overactivity"}


def test_exact_limit_switches_the_joint_test_to_seeded_sampling(tmp_path, monkeypatch):
    import tests.hyp.constructed as constructed

    monkeypatch.setattr(constructed, "chain", lambda first: [FIRST_STEPS[first], "vascular remodelling",
                                                             "raised blood pressure"])
    # Mixed depths: the effect is moderate (exact p about 0.2), so a sample of 300 splits finds hits.
    store(tmp_path, [r for name, k in zip("abcd", (4, 4, 3, 3)) for r in depth_split_runs(name, k)])
    rule = ["--rules", "tfidf", "--tfidf-threshold", "0.95"]  # only identical hypotheses are the same
    exact = _divergence(tmp_path, *rule)
    assert {row["test"] for row in exact} == {"exact"} and 0.05 < float(exact[0]["p_value"]) < 0.95, exact
    sampled = _divergence(tmp_path, *rule, "--exact-limit", "1", "--samples", "300", "--seed", "3")
    again = _divergence(tmp_path, *rule, "--exact-limit", "1", "--samples", "300", "--seed", "3")
    other = _divergence(tmp_path, *rule, "--exact-limit", "1", "--samples", "300", "--seed", "4")
    assert {row["test"] for row in sampled} == {"sampled"} and {row["samples"] for row in sampled} == {"300"}
    for row, same, seed4, reference in zip(sampled, again, other, exact):
        p = float(row["p_value"])
        assert p == float(same["p_value"]), "the same seed draws the same splits"
        assert abs(p * 301 - round(p * 301)) < 1e-9, "p = (1 + hits) / (1 + samples)"
        assert abs(p - float(reference["p_value"])) < 0.15, (p, reference["p_value"])
    assert [r["p_value"] for r in sampled] != [r["p_value"] for r in other], "another seed draws other splits"


def test_rubric_names_the_llm_rule_that_judged(tmp_path, monkeypatch):
    store(tmp_path, [r for name, k in zip("ab", (5, 4)) for r in depth_split_runs(name, k)])
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback-test")
    with dspy_cache_off(), equiv_loopback_server(lambda a, b: a == b) as (api_base, state):
        rows = _divergence(tmp_path, "--rules", "llm", "--rubric", "component,none", "--lm", "openai/div-rubric",
                           "--api-base", api_base)
        systems = "\n".join(state.system_prompts)
    assert {row["rule"] for row in rows} == {"llm-component", "llm-none"}
    assert "initiating" in systems.lower(), "the component rubric's own outputs were asked for"

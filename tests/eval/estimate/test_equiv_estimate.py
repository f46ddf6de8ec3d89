"""``equiv audit``: ``--estimate`` against the real audit on the loopback peer (the LLM rule's calls inside
the range, exact where they are fixed; TF-IDF costs nothing; nothing sent, no MLflow run, no folder), caps
reached and resumed from the journal of pair judgments (no finished judgment paid again, the response cache
off as it is for repeats), ``summary.json`` read back rendering what the terminal showed, the role metrics."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from tests.support.rendered import assert_shown_as_rendered
from tests.support.dspy_cache import private_dspy_cache
from tests.support.equiv_fakes import equiv_loopback_server
from tribunal import read_run_summary
from tribunal.cli import app
from tribunal.cli.equiv_report import print_audit
from tribunal.errors import EXIT_CAPPED

MODEL = "openai/gpt-4o-mini"  # priced; reached through --api-base (the loopback peer)
runner = CliRunner()


def agreeing(a: str, b: str) -> bool:
    return True  # both presentation orders agree: 2 calls a pair


def order_bound(a: str, b: str) -> bool:
    return a <= b  # the two orders disagree: the third vote is needed


def _sent_prompt_tokens(bodies: list[bytes]) -> int:
    """The prompts the peer received, counted with the tokenizer the estimate uses (the peer's own usage
    figures are not a tokenizer's)."""
    from tribunal.eval.estimate.tokens import counter_for

    counter = counter_for(MODEL)
    return sum(counter.count_messages([{"role": m["role"], "content": m["content"]}
                                       for m in json.loads(body)["messages"]]) for body in bodies)


@pytest.fixture
def pairs(tmp_path, monkeypatch):
    from tribunal.eval.equiv.suite import default_suite_path

    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback-estimate")
    lines = (default_suite_path().parent / "heldout_pairs.jsonl").read_text().splitlines()[:6]
    path = tmp_path / "six.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with private_dspy_cache(tmp_path / "dspy-cache"):
        yield path


def _args(api_base: str, pairs, out, *extra: str, rules: str = "tfidf,llm") -> list[str]:
    return ["equiv", "audit", "--pairs", str(pairs), "--rules", rules, "--lm", MODEL, "--api-base", api_base,
            "--repeats", "2", "--temperature", "0.5", "--threads", "1", "--out", str(out), *extra]


@pytest.mark.parametrize("decide", [agreeing, order_bound])
def test_the_estimate_sends_nothing_and_its_range_holds_the_real_audit(decide, pairs, tmp_path):
    with equiv_loopback_server(decide) as (api_base, state):
        estimated = runner.invoke(app, _args(api_base, pairs, tmp_path / "run", "--estimate", "--json",
                                             "--tracking-uri", f"sqlite:///{tmp_path / 'mlflow.db'}"))
        assert estimated.exit_code == 0, estimated.output
        assert state.hits == [] and not (tmp_path / "mlflow.db").exists() and not (tmp_path / "run").exists()
        estimate = json.loads(estimated.stdout.strip().splitlines()[-1])
        result = runner.invoke(app, _args(api_base, pairs, tmp_path / "run", "--no-track"))
        assert result.exit_code == 0, result.output
        hits, sent = len(state.hits), _sent_prompt_tokens(state.bodies)
    assert estimate["calls"] == {"low": 2 * 12, "high": 3 * 12} and estimate["items"] == 12
    assert set(estimate["by_role"]) == {"equivalence_judge"}
    summary = read_run_summary(tmp_path / "run")
    assert summary.calls == hits == (24 if decide is agreeing else 36)  # the range's ends are the two scripts
    assert summary.roles["equiv/equivalence_judge"].calls == hits
    assert estimate["usd"]["low"] <= summary.spend_usd <= estimate["usd"]["high"]
    assert estimate["prompt_tokens"]["low"] <= sent <= estimate["prompt_tokens"]["high"], (estimate["prompt_tokens"], sent)
    if decide is agreeing:  # the low scenario's prompts are the ones sent (they quote no answer)
        assert estimate["prompt_tokens"]["low"] == sent


def test_rules_without_an_lm_cost_nothing(pairs, tmp_path):
    estimated = runner.invoke(app, ["equiv", "audit", "--pairs", str(pairs), "--rules", "tfidf", "--estimate",
                                    "--json"])
    assert estimated.exit_code == 0, estimated.output
    estimate = json.loads(estimated.stdout.strip().splitlines()[-1])
    assert estimate["calls"] == {"low": 0, "high": 0} and estimate["by_role"] == {}


@pytest.mark.parametrize("cap", ["--max-calls", "--max-cost"])
def test_a_cap_stops_the_audit_and_the_resumed_audit_pays_for_no_finished_judgment(cap, pairs, tmp_path):
    with equiv_loopback_server(agreeing) as (api_base, state):
        clean = runner.invoke(app, _args(api_base, pairs, tmp_path / "clean", "--no-track"))
        assert clean.exit_code == 0, clean.output
        clean_calls, clean_spend = len(state.hits), read_run_summary(tmp_path / "clean").spend_usd
        limit = "7" if cap == "--max-calls" else f"{clean_spend / 2:.8f}"
        capped = runner.invoke(app, _args(api_base, pairs, tmp_path / "run", "--no-track", cap, limit))
        assert capped.exit_code == EXIT_CAPPED, capped.output
        first = read_run_summary(tmp_path / "run")
        first_calls = len(state.hits) - clean_calls
        resumed = runner.invoke(app, _args(api_base, pairs, tmp_path / "run", "--no-track"))
        assert resumed.exit_code == 0, resumed.output
        resumed_calls = len(state.hits) - clean_calls - first_calls
    assert first.stopped_by and first.stopped_by.startswith(cap) and first.mlflow_run_id is None
    assert first.items.left > 0 and first.cap.calls_sent == first_calls and "resume" in capped.output
    assert first.cap.resume.startswith("tribunal equiv audit") and cap in first.cap.resume
    if cap == "--max-calls":
        assert first_calls == 6  # a pair starts only while its 3 votes fit: 3 pairs of 2 calls, none cut short
    else:
        assert first.cap.spent_usd <= clean_spend / 2
    second = read_run_summary(tmp_path / "run")
    assert first_calls + resumed_calls == clean_calls  # the journal's judgments are not asked again
    assert second.items.left == 0 and second.items.scored == second.items.total == 2 * 2 * 6
    assert "read back from the journal" in resumed.output


def test_summary_json_renders_what_the_terminal_showed_and_mlflow_has_the_role_metrics(pairs, tmp_path):
    import mlflow

    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    with equiv_loopback_server(order_bound) as (api_base, state):
        result = runner.invoke(app, _args(api_base, pairs, tmp_path / "run", "--tracking-uri", uri),
                               env={"COLUMNS": "150"})
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert {"calls", "spend_usd", "items", "signature", "mlflow_run_id", "stopped_by"} <= set(data)
    summary = read_run_summary(tmp_path / "run")
    assert_shown_as_rendered(result.output, print_audit, summary)
    metrics = mlflow.MlflowClient(uri).get_run(summary.mlflow_run_id).data.metrics
    assert metrics["role.equivalence_judge.calls"] == summary.calls == 36
    assert metrics["role.equivalence_judge.usd"] == pytest.approx(summary.spend_usd)
    assert metrics["usage.completion_tokens"] == summary.completion_tokens > 0

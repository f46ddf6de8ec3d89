"""``--max-cost`` and ``--max-calls`` on ``tribunal mt evaluate`` over the loopback peer, and ``summary.json``.

The peer answers as ``openai/gpt-4o-mini`` (priced in LiteLLM's table) and returns usage tokens, so
the spend is real arithmetic; every request that reaches it is counted.
"""

from __future__ import annotations

import pytest

import io
import json

from rich.console import Console
from typer.testing import CliRunner

from tests.eval.mt.helpers import KEY_ENV, SECRET, wmt23
from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tribunal import read_run_summary
from tribunal.cli import app
from tribunal.cli.mt_summary_lines import print_summary
from tribunal.errors import EXIT_CAPPED
from tests.support.judging_paths import either_judging  # noqa: F401  (a fixture: both judging paths)

pytestmark = pytest.mark.usefixtures("either_judging")

MODEL = "openai/gpt-4o-mini"


def _args(api_base: str, out, *extra: str, program: str = "gemba-mqm", limit: int = 8) -> list[str]:
    return ["mt", "evaluate", "--data", str(wmt23()), "--lp", "zh-en", "--lm", MODEL, "--api-base", api_base,
            "--api-key-env", KEY_ENV, "--limit", str(limit), "--program", program,
            *(["--demos", "0"] if program == "mmad" else []), "--max-tokens", "256", "--out", str(out), "--no-track", *extra]


def _run(args: list[str]):
    return CliRunner().invoke(app, args)


def test_a_cost_cap_stops_mid_run_and_the_resumed_run_pays_for_no_finished_item(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "cache"))
    with loopback_server(synthetic_judge) as (api_base, state):
        clean = _run(_args(api_base, tmp_path / "clean", "--no-cache", "--concurrency", "1"))
        assert clean.exit_code == 0, clean.output
        clean_calls, clean_spend = len(state.hits), read_run_summary(tmp_path / "clean").spend_usd
        assert clean_calls == 8 and clean_spend > 0

        cap = clean_spend / 2
        capped_args = _args(api_base, tmp_path / "run", "--no-cache", "--concurrency", "1", "--max-cost", f"{cap:.8f}")
        capped = _run(capped_args)
        assert capped.exit_code == EXIT_CAPPED, capped.output
        first = read_run_summary(tmp_path / "run")
        first_calls = len(state.hits) - clean_calls
        assert first.stopped_by == f"--max-cost {float(f'{cap:.8f}'):g}" and first.cap.stopped_by == first.stopped_by
        assert first.cap.spent_usd <= cap and first.cap.calls_sent == first_calls
        assert 0 < first.items.scored < 8 and first.items.left == 8 - first.items.scored - first.items.unscored
        assert first.cap.resume.startswith("tribunal mt evaluate") and "--max-cost" in first.cap.resume
        assert "stopped by --max-cost" in capped.output and "resume" in capped.output

        resumed = _run(_args(api_base, tmp_path / "run", "--no-cache", "--concurrency", "1", "--max-cost", "1"))
        assert resumed.exit_code == 0, resumed.output
        resumed_calls = len(state.hits) - clean_calls - first_calls
        second = read_run_summary(tmp_path / "run")
    assert first_calls + resumed_calls == clean_calls  # no finished item was asked again (no cache to hide it)
    assert second.stopped_by is None and second.items.scored == 8 and second.items.left == 0
    assert second.cap.spent_usd <= 1 and second.cap.calls_sent == resumed_calls


def test_a_call_cap_sends_exactly_that_many_calls(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "cache"))
    with loopback_server(synthetic_judge) as (api_base, state):
        capped = _run(_args(api_base, tmp_path / "run", "--no-cache", "--concurrency", "3", "--max-calls", "5"))
        assert capped.exit_code == EXIT_CAPPED, capped.output
        summary = read_run_summary(tmp_path / "run")
        assert len(state.hits) == 5 and summary.cap.calls_sent == 5 and summary.stopped_by == "--max-calls 5"
        assert summary.items.scored == 5 and summary.items.left == 3 and summary.cap.calls_left == 0
        resumed = _run(_args(api_base, tmp_path / "run", "--no-cache", "--max-calls", "5"))
        assert resumed.exit_code == 0, resumed.output
    assert len(state.hits) == 8


def test_mmad_cut_short_by_a_cap_resumes_from_the_response_cache(tmp_path, monkeypatch):
    """Items in flight when the cap refuses a call are left unjournaled; their finished calls are cached."""
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "cache"))
    with loopback_server(synthetic_judge) as (api_base, state):
        clean = _run(_args(api_base, tmp_path / "clean", "--no-cache", program="mmad", limit=3))
        assert clean.exit_code == 0, clean.output
        clean_calls = len(state.hits)
        capped = _run(_args(api_base, tmp_path / "run", "--max-calls", str(clean_calls // 2), program="mmad", limit=3))
        assert capped.exit_code == EXIT_CAPPED, capped.output
        first_calls = len(state.hits) - clean_calls
        assert first_calls == clean_calls // 2
        resumed = _run(_args(api_base, tmp_path / "run", program="mmad", limit=3))
        assert resumed.exit_code == 0, resumed.output
    assert len(state.hits) - clean_calls == clean_calls  # capped + resumed = one clean run: nothing paid twice


def test_an_unpriced_model_refuses_a_cost_cap_before_any_call(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    with loopback_server(synthetic_judge) as (api_base, state):
        args = _args(api_base, tmp_path / "run", "--max-cost", "0.1")
        args[args.index(MODEL)] = "openai/loopback-judge"
        result = _run(args)
    assert result.exit_code != 0 and not state.hits  # the app itself: `tribunal` (main) turns it into status 2
    assert "--max-cost: openai/loopback-judge has no price" in str(result.exception)


def test_summary_json_read_back_renders_what_the_terminal_showed(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "cache"))
    with loopback_server(synthetic_judge) as (api_base, state):
        result = _run(_args(api_base, tmp_path / "run", "--max-calls", "6", "--concurrency", "1", limit=8))
    assert result.exit_code == EXIT_CAPPED, result.output
    data = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert {"calls", "spend_usd", "items", "signature", "mlflow_run_id", "stopped_by"} <= set(data)
    assert {"scored", "unscored", "degraded"} <= set(data["items"]) and data["calls"] == 6
    summary = read_run_summary(tmp_path / "run")
    assert summary.roles and all(r.runaways == 0 for r in summary.roles.values())
    buffer = io.StringIO()
    print_summary(Console(file=buffer, width=150), summary)
    rendered = buffer.getvalue().strip().splitlines()
    shown = result.output.splitlines()
    start = next(i for i, text in enumerate(shown) if text.startswith("items:"))
    assert shown[start:start + len(rendered)] == rendered


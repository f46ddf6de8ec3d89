"""``--max-tokens`` and ``--timeout`` on every LM command; ``demo --no-lm``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import assert_one_line_error, run_cli
from tests.support.dspy_cache import dspy_cache_off
from tests.support.loopback import loopback_server

REPO = Path(__file__).resolve().parents[2]
LM = ["--lm", "openai/x"]


def _commands(tmp_path: Path) -> dict[str, list[str]]:
    (tmp_path / "runs-dir" / "runs").mkdir(parents=True)
    return {
        "evaluate": ["mt", "evaluate", "--lp", "zh-en", *LM],
        "audit": ["equiv", "audit", "--rules", "llm", *LM, "--no-track"],
        "generate": ["equiv", "generate", *LM, "--no-track", "--out", str(tmp_path / "g.jsonl")],
        "run": ["hyp", "run", *LM, "--no-track", "--out", str(tmp_path / "hyp")],
        "divergence": ["hyp", "divergence", str(tmp_path / "runs-dir"), "--rules", "llm", *LM, "--no-track"],
        "optimize": ["optimize", "--program", "gemba-mqm", "--optimizer", "labeled", "--train", "mqm-ted:zh-en:0-2",
                     "--dev", "mqm-ted:zh-en:2-4", *LM, "--no-track"],
        "demo": ["demo", *LM, "--no-track", "--out", str(tmp_path / "demo")],
    }


@pytest.mark.parametrize("command", ["evaluate", "audit", "generate", "run", "divergence", "optimize", "demo"])
def test_a_timeout_that_is_not_positive_is_refused_before_any_work(command, tmp_path, capsys):
    outcome = run_cli(capsys, *_commands(tmp_path)[command], "--timeout", "0")
    assert_one_line_error(outcome, "--timeout")


@pytest.mark.parametrize("command", ["evaluate", "audit", "generate", "run", "divergence", "optimize", "demo"])
def test_a_token_limit_below_one_is_refused(command, tmp_path, capsys):
    outcome = run_cli(capsys, *_commands(tmp_path)[command], "--max-tokens", "0")
    assert_one_line_error(outcome, "--max-tokens")


def test_the_limits_reach_the_server(tmp_path, capsys):
    lines = (REPO / "eval" / "equiv" / "suite" / "heldout_pairs.jsonl").read_text(encoding="utf-8").splitlines()[:2]
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with loopback_server(respond_raw=lambda body: ("judge", "[[ ## verdict ## ]]\nsame")) as (api_base, state), \
            dspy_cache_off():
        outcome = run_cli(capsys, "equiv", "audit", "--rules", "llm", "--pairs", pairs, "--repeats", "1", "--lm",
                          "openai/x", "--api-base", api_base, "--max-tokens", "33", "--timeout", "44", "--no-track",
                          "--out", tmp_path / "audit")
    assert outcome.status in (0, 3), outcome.err
    import json

    bodies = [json.loads(raw) for raw in state.bodies]
    assert bodies and all(body["max_tokens"] == 33 and "max_completion_tokens" not in body for body in bodies)


def test_demo_no_lm_refuses_an_lm(tmp_path, capsys):
    outcome = run_cli(capsys, "demo", "--no-lm", "--lm", "openai/x", "--no-track", "--out", tmp_path / "demo")
    assert_one_line_error(outcome, "--no-lm")

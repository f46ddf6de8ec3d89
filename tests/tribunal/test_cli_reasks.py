"""``--reasks N`` on every command with an LM, ``[lm] reasks`` in a config file, and ``equiv audit --limit N``,
each checked by what the loopback server received and what the user is shown.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections import Counter

import pytest

from tests.support.cli import assert_one_line_error, run_cli
from tests.support.equiv_fakes import equiv_loopback_server
from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge

KEY_ENV = "TRIBUNAL_OPTIONS_TEST_KEY"


def model() -> str:
    return f"openai/reasks-{uuid.uuid4().hex[:8]}"  # a fresh key space in DSPy's cache


@pytest.fixture
def key(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(KEY_ENV, "sk-options-test")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def refuse_first_accuracy_answer():
    seen: Counter = Counter()
    lock = threading.Lock()

    def fault(number, name, inputs):
        if not name.endswith("AccuracyAssessment"):
            return None
        with lock:
            seen[json.dumps(inputs, sort_keys=True)] += 1
            return "refusal" if seen[json.dumps(inputs, sort_keys=True)] == 1 else None

    return fault


def test_mt_evaluate_reasks_option_and_config_key(tmp_path, capsys, key):
    base = ["mt", "evaluate", "--lp", "en-de", "--lm", model(), "--api-key-env", KEY_ENV, "--limit", "3",
            "--demos", "0", "--no-cache", "--no-track"]
    with loopback_server(synthetic_judge, refuse_first_accuracy_answer()) as (api_base, state):
        default = run_cli(capsys, *base, "--api-base", api_base, "--out", tmp_path / "default")
        assert default.status == 0, default.err
        assert "; of which 3 re-asks (refusal 3)" in default.out
    with loopback_server(synthetic_judge, refuse_first_accuracy_answer()) as (api_base, state):
        none = run_cli(capsys, *base, "--api-base", api_base, "--reasks", "0", "--out", tmp_path / "none")
        assert none.status == 3 and "; of which 0 re-asks" in none.out
        assert "unscored: 3 x refusal" in none.out and "rerun with --retry-unscored" in none.out
        assert sum(name.endswith("AccuracyAssessment") for name, _, _ in state.hits) == 3  # asked once each
    config = tmp_path / "run.json"
    config.write_text(json.dumps({"lm": {"reasks": 0}}))
    with loopback_server(synthetic_judge, refuse_first_accuracy_answer()) as (api_base, state):
        keyed = run_cli(capsys, *base, "--api-base", api_base, "--config", config, "--out", tmp_path / "keyed")
        assert keyed.status == 3 and "unscored: 3 x refusal" in keyed.out
        flag = run_cli(capsys, *base, "--api-base", api_base, "--config", config, "--reasks", "1",
                       "--out", tmp_path / "flag")  # the flag overrides the file
        assert flag.status == 0, flag.out
    too_many = run_cli(capsys, *base, "--api-base", "http://127.0.0.1:9/v1", "--reasks", "11")
    assert too_many.status == 2 and "--reasks" in too_many.err


def test_equiv_audit_limit_and_reasks(tmp_path, capsys, key):
    args = ["equiv", "audit", "--rules", "llm", "--lm", model(), "--api-key-env", KEY_ENV, "--repeats", "1",
            "--threads", "1", "--no-track"]
    with equiv_loopback_server(lambda a, b: True) as (api_base, state):
        two = run_cli(capsys, *args, "--api-base", api_base, "--limit", "2", "--out", tmp_path / "two")
        assert two.status == 0, two.err
        assert "suite hypotheses (2 pairs" in two.out and len(state.hits) == 4  # two votes per pair, agreeing
        assert "--temperature 0: the LLM judge's third vote is no repeated request" in two.err
    with equiv_loopback_server(lambda a, b: True, bad_answer=lambda body: "refusal") as (api_base, state):
        refused = run_cli(capsys, *args, "--api-base", api_base, "--limit", "1", "--reasks", "1",
                          "--out", tmp_path / "refused")
        assert refused.status == 3 and "unscored pairs (first repeat): llm-full 1" in refused.out
        assert len(state.hits) == 4  # two votes (the third counts the first twice), each asked twice


def test_equiv_generate_reasks(tmp_path, capsys, key):
    from tribunal.eval.equiv.checks import PERTURBATION_KINDS
    from tribunal.eval.equiv.suite import load_suite

    suite = tmp_path / "suite.jsonl"
    suite.write_text("".join(json.dumps(p.model_dump(mode="json")) + "\n" for p in load_suite().pairs[:4]))
    with loopback_server(respond_raw=lambda body: ("perturb", "I'm sorry, I can't help with that.")) as (api_base, state):
        outcome = run_cli(capsys, "equiv", "generate", "--lm", model(), "--api-base", api_base, "--api-key-env", KEY_ENV,
                          "--suite", suite, "--attempts", "1", "--reasks", "0", "--out", tmp_path / "g.jsonl",
                          "--no-track")
        assert outcome.status == 0, outcome.err
        assert len(state.hits) == len(PERTURBATION_KINDS)  # one ask per kind, no re-ask
    assert ("rejected h01-salt-hypertension/original first-step-swapped: refusal: it gave none of the fields asked "
            "for (perturbation generator, asked once)") in outcome.out


@pytest.fixture
def short_chains(monkeypatch):
    """The hypothesis roles over loopback; the proposer's chains have one step (the reviser's are fine)."""
    from tests.hyp.workflow_lm import FIRST_LINES, answer
    from tests.support import mqm_fakes

    monkeypatch.setattr(mqm_fakes, "_FIRST_LINES", FIRST_LINES)
    calls: Counter = Counter()

    def respond(role, inputs):
        out = answer(role, inputs, calls)
        if role == "propose":
            out = {"hypotheses": [dict(h, causal_chain=h["causal_chain"][:1]) for h in out["hypotheses"]]}
        return out

    with loopback_server(respond) as (api_base, state):
        yield api_base, state, calls


def test_hyp_run_reasks_and_one_line_reasons(tmp_path, capsys, key, short_chains):
    api_base, state, calls = short_chains
    outcome = run_cli(capsys, "hyp", "run", "--lm", model(), "--api-base", api_base, "--api-key-env", KEY_ENV,
                      "--depths", "0", "--reruns", "1", "--max-per-opening", "1", "--threads", "1", "--reasks", "1",
                      "--no-engagement", "--out", tmp_path / "runs", "--no-track")
    assert outcome.status == 3
    openings = json.loads((tmp_path / "runs" / "manifest.json").read_text())["instances"][0]["opening_hypotheses"]
    assert calls["propose"] == 2 * len(openings)  # each opening asked, then re-asked once
    failed = [line for line in outcome.out.splitlines() if line.startswith("metformin-b12/d0-r0:")]
    assert len(failed) == 1 and "pydantic" not in outcome.out and "https://errors" not in outcome.out
    assert ("opening 0: invalid answer: hypotheses[0].causal_chain has 1 item; it needs at least 3 (the initiating "
            "event, at least one intermediate step, and the observed finding) (proposer, asked 2 times)") in failed[0]


def test_hyp_divergence_reasks(tmp_path, capsys, key):
    from tests.hyp.constructed import run, store

    store(tmp_path, [run(f"d0-r{r}", 0, [["P"]], "a") for r in range(2)])
    with equiv_loopback_server(lambda a, b: True, bad_answer=lambda body: "wrong-keys") as (api_base, state):
        outcome = run_cli(capsys, "hyp", "divergence", tmp_path, "--rules", "llm", "--lm", model(), "--api-base",
                          api_base, "--api-key-env", KEY_ENV, "--reasks", "0", "--out", tmp_path / "d", "--no-track")
    assert outcome.status == 0, outcome.err
    assert len(state.hits) == 2  # one pair, two votes, no re-ask


def test_optimize_and_demo_take_reasks(tmp_path, capsys, key, monkeypatch):
    from tribunal.optimizers import optimize_job

    seen = {}

    def stop(request, settings, progress=None, cap=None):
        seen["reasks"] = request.reasks
        raise SystemExit(0)

    monkeypatch.setattr(optimize_job, "run_optimize", stop)
    run_cli(capsys, "optimize", "--program", "equiv-llm", "--optimizer", "labeled", "--train", "suite:0-8",
            "--dev", "suite:8-12", "--lm", model(), "--reasks", "4", "--no-track")
    assert seen == {"reasks": 4}
    assert_one_line_error(run_cli(capsys, "demo", "--reasks", "-1", "--no-track"), "--reasks")
    assert_one_line_error(run_cli(capsys, "demo", "--server-slots", "none", "--no-track"), "--server-slots")

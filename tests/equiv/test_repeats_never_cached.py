"""Repeated judgments meant to be independent (``equiv audit --repeats``) never come from the response cache.

Counted by the loopback server, with DSPy's response cache on (its default) in a folder of this
test's own: a single-pass audit run twice is answered from the cache the second time, while a
repeated audit pays for every judgment every time; at temperature 0 the command says what such
repeats can measure.
"""

from __future__ import annotations

import pytest

from tests.support.cli import run_cli
from tests.support.equiv_fakes import equiv_loopback_server


@pytest.fixture
def pairs(tmp_path):
    from tribunal.eval.equiv.suite import default_suite_path

    lines = (default_suite_path().parent / "heldout_pairs.jsonl").read_text().splitlines()[:6]
    path = tmp_path / "six.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    from tests.support.dspy_cache import private_dspy_cache

    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback-repeats")
    with private_dspy_cache(tmp_path / "dspy-cache"):
        yield


def _audit(capsys, api_base, pairs, out, repeats):
    return run_cli(capsys, "equiv", "audit", "--pairs", pairs, "--rules", "llm", "--lm", "openai/loopback-judge",
                   "--api-base", api_base, "--repeats", str(repeats), "--threads", "2", "--no-track", "--out", out)


def test_repeats_pay_every_time_while_a_single_pass_is_cached(tmp_path, pairs, private_cache, capsys):
    with equiv_loopback_server(lambda a, b: True) as (api_base, state):
        _audit(capsys, api_base, pairs, tmp_path / "one-a", repeats=1)
        single = len(state.hits)
        _audit(capsys, api_base, pairs, tmp_path / "one-b", repeats=1)
        assert len(state.hits) == single > 0  # the cache is on by default: the same audit costs nothing again

        before = len(state.hits)
        first = _audit(capsys, api_base, pairs, tmp_path / "two-a", repeats=2)
        paid_first = len(state.hits) - before
        second = _audit(capsys, api_base, pairs, tmp_path / "two-b", repeats=2)
        paid_second = len(state.hits) - before - paid_first
    assert paid_first == paid_second == 2 * single  # both repeats, every time: nothing replayed from the cache
    assert first.status == second.status == 0
    assert "repeats are fresh calls" in first.err and "--temperature 0" in first.err

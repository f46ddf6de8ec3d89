"""The MLflow scorer runs the program ``mt evaluate`` runs: the same requests, byte for byte.

For every MT program, ``tribunal mt evaluate`` judges three WMT23 zh-en items over a loopback
server that records every request body; :class:`tribunal.scorers.MQMJudge` then judges the same
items against a fresh server. The two sets of request bodies must be identical (demos, instructions,
model settings and all); order aside, since the runner's calls run side by side.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tribunal.cli import app
from tribunal.errors import UserError
from tribunal.data.mtme import LanguagePair
from tribunal.core.judges import JUDGES
from tribunal.scorers import MQMJudge

from tests.eval.mt.helpers import KEY_ENV, SECRET, wmt23

SYSTEM, ITEMS = "Lan-BridgeMT", 3
TED = Path(os.environ.get("TRIBUNAL_DATA", "/nonexistent")) / "mqm-ted"
pytestmark = pytest.mark.skipif(not TED.is_dir() or not wmt23().is_dir(),
                                reason="WMT23 and TED MQM data not found (set TRIBUNAL_DATA)")


def evaluate_bodies(program: str, tmp_path: Path) -> list[bytes]:
    with loopback_server(synthetic_judge) as (api_base, state):
        result = CliRunner().invoke(app, [
            "mt", "evaluate", "--data", str(wmt23()), "--lp", "zh-en", "--program", program, "--lm",
            "openai/loopback-judge", "--api-base", api_base, "--api-key-env", KEY_ENV, "--no-cache",
            "--systems", SYSTEM, "--limit", str(ITEMS), "--no-track", "--out", str(tmp_path / program)])
    assert result.exit_code == 0, result.output
    return list(state.bodies)


def scorer_bodies(program: str) -> list[bytes]:
    pair = LanguagePair(wmt23(), "zh-en")
    outputs = pair.system_output(SYSTEM)
    with loopback_server(synthetic_judge) as (api_base, state):
        judge = MQMJudge(program=program, lm="openai/loopback-judge", api_base=api_base, api_key_env=KEY_ENV,
                         cache=False)
        for source, translation in list(zip(pair.sources, outputs))[:ITEMS]:
            feedback = judge(inputs={"source": source, "source_lang": "Chinese", "target_lang": "English"},
                             outputs=translation)
            assert feedback.error is None and isinstance(feedback.value, float)
    return list(state.bodies)


@pytest.mark.parametrize("program", JUDGES.names("mt"))
def test_the_scorer_sends_mt_evaluates_requests_byte_for_byte(program, tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("DSPY_CACHEDIR", str(tmp_path / "cache"))
    evaluated = evaluate_bodies(program, tmp_path)
    scored = scorer_bodies(program)
    assert len(evaluated) >= ITEMS
    assert sorted(scored) == sorted(evaluated)
    sizes = sorted({len(json.loads(body)["messages"]) for body in evaluated})
    if program in ("mmad", "gemba-mqm", "gemba-esa", "mqm-ape"):  # programs with TED demos
        assert sizes[-1] > 2, sizes
    if program == "mmad":  # stage 1: system, 4 demos as user/assistant pairs, the segment
        assert 10 in sizes, sizes


def test_the_pair_comes_from_the_row_languages_or_lp():
    judge = MQMJudge(program="gemba-mqm", lm="openai/x")
    feedback = judge(inputs={"source": "a", "source_lang": "Klingon", "target_lang": "English"}, outputs="b")
    assert "MQMJudge(lp=...)" in feedback.error.error_message
    config = MQMJudge(program="mmad", lm="openai/x", settings={"preset": "lean", "rounds": 2, "ablate": ("stage3",)}
                      ).evaluate_config("he-en")
    assert (config.lp, config.settings.preset, config.settings.rounds, config.settings.ablate) == \
        ("he-en", "lean", 2, ("stage3",))
    assert MQMJudge(program="mqm-ape", lm="openai/x", settings={"ablate": "verifier"}).evaluate_config("zh-en"
                                                                                             ).settings.ablate == ("verifier",)
    with pytest.raises(UserError, match="EAPrompt .eaprompt. takes no settings"):
        MQMJudge(program="eaprompt", lm="openai/x", settings={"ablate": ("stage1",)}).evaluate_config("zh-en")
    with pytest.raises(UserError, match="M-MAD has no setting 'round' .its settings: preset, strategy, rounds"):
        MQMJudge(program="mmad", lm="openai/x", settings={"round": 2}).evaluate_config("zh-en")

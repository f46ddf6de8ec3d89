"""An LM per role over real HTTP: the debaters on one server, the judge (and the rest) on another."""

from __future__ import annotations

from collections import Counter

import pytest
from typer.testing import CliRunner

from tests.support.loopback import loopback_server
from tests.support.mqm_fakes import synthetic_judge
from tribunal.cli import app
from tribunal.eval.tracking.signature import escape
from tribunal.programs.lm import RoleLM, parse_role_lms

from .helpers import KEY_ENV, SECRET, wmt23


def test_role_lm_syntax():
    roles = parse_role_lms(["judge=openai/big", "debater=openai/small@http://10.0.0.5:8000/v1"])
    assert roles == {"judge": RoleLM(model="openai/big"),
                     "debater": RoleLM(model="openai/small", api_base="http://10.0.0.5:8000/v1")}
    assert roles["debater"].label() == "openai/small@http://10.0.0.5:8000/v1"
    with pytest.raises(ValueError, match="ROLE=MODEL"):
        parse_role_lms(["judge=openai/big@"])


def test_each_role_reaches_its_own_server(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    with loopback_server(synthetic_judge) as (main_base, main), loopback_server(synthetic_judge) as (debate_base, debate):
        result = CliRunner().invoke(app, [
            "mt", "evaluate", "--data", str(wmt23()), "--lp", "zh-en", "--limit", "8", "--demos", "0",
            "--lm", "openai/judge", "--api-base", main_base, "--api-key-env", KEY_ENV, "--no-cache",
            "--role-lm", f"debater=openai/debater@{debate_base}", "--out", str(tmp_path / "out"), "--no-track"])
    assert result.exit_code == 0, (result.output, result.exception)
    on_main, on_debate = Counter(h[0] for h in main.hits), Counter(h[0] for h in debate.hits)
    debate_turns = {"DebateTurn", *(f"{d}Reexamination" for d in ("Accuracy", "Fluency", "Style", "Terminology"))}
    assert on_debate and set(on_debate) <= debate_turns  # the debaters' turns, and nothing else
    assert not set(on_main) & debate_turns
    assert on_main["MergingJudgment"] > 0 and on_main["GuidedAccuracyAssessment"] == 8  # judge and agents
    assert f"roles:debater=openai/debater@{escape(debate_base)}" in result.output.replace("\n", "")  # ":" escaped
    assert SECRET not in result.output

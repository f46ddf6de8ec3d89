"""On a paid API without --max-tokens, each role's first ask carries the limit that fits its answer (the judge
registry's ``answer_tokens``), not the provider's maximum; a given --max-tokens, or a server, keeps its own."""

from __future__ import annotations

import dspy
import pytest

from tests.support.scripted_lm import ScriptedEngine
from tribunal.core.judges import JUDGES
from tribunal.programs.answers import ask, tolerant_answers
from tribunal.programs.lm import LMSettings, build_lm, fits_answers
from tribunal.signatures.mqm.gemba import GembaMQM

INPUTS = dict(source_lang="Chinese", target_lang="English", source="他去了银行。", translation="He went to the bank.")


class LimitEngine(ScriptedEngine):
    """Answers GEMBA-MQM with no error and keeps each request's token limit."""

    def __init__(self):
        super().__init__(lambda system, user: {"errors": []})
        self.limits: list[int | None] = []

    def complete(self, request):
        self.limits.append(getattr(request.config, "max_tokens", None))
        return super().complete(request)


def _limits(settings: LMSettings, role: str | None = "gemba", **keywords) -> list[int | None]:
    engine = LimitEngine()
    lm = build_lm(settings, engine=engine)
    with dspy.context(lm=lm), tolerant_answers():
        ask(dspy.Predict(GembaMQM), role=role, **keywords, **INPUTS)
    return engine.limits


def test_every_role_of_every_judge_declares_a_limit_that_fits_its_answer():
    limits = JUDGES.answer_tokens()
    declared = {role for judge in JUDGES for role, _ in judge.answer_tokens}
    groups = set(JUDGES.role_groups().values())
    assert set(JUDGES.roles()) - groups <= declared  # a group is no role of its own: its members declare
    assert all(64 <= tokens <= 1024 for tokens in limits.values())


def test_a_paid_api_gets_the_role_limit():
    settings = LMSettings(model="openai/gpt-4o-mini", cache=False)
    assert fits_answers(settings)
    assert _limits(settings) == [JUDGES.answer_tokens()["gemba"]] == [512]


def test_a_given_max_tokens_wins():
    settings = LMSettings(model="openai/gpt-4o-mini", cache=False, max_tokens=300)
    assert not fits_answers(settings) and _limits(settings) == [300]


def test_a_server_keeps_its_own_default():
    settings = LMSettings(model="openai/qwen", api_base="http://127.0.0.1:9/v1", cache=False)
    assert not fits_answers(settings)


@pytest.mark.parametrize("role,expected", [(None, None), ("no such role", None)])
def test_a_call_without_a_declared_role_keeps_the_provider_limit(role, expected):
    assert _limits(LMSettings(model="openai/gpt-4o-mini", cache=False), role=role) == [expected]


def test_a_caller_may_declare_its_own_limit():
    assert _limits(LMSettings(model="openai/gpt-4o-mini", cache=False), role="proposer", answer_tokens=200) == [200]

"""The error-free judge on a scripted offline LM: one call, its verdict as an ESA-scale score, its registry entry."""

from __future__ import annotations

import dspy
import pytest

from tests.support.mqm_fakes import ScriptedEngine
from tribunal.core.judges import JUDGES
from tribunal.eval.meta.error_free import from_score
from tribunal.programs.mqm.error_free import ErrorFreeJudge
from tribunal.programs.mqm.roles import RoleLMs


@pytest.mark.parametrize("verdict, score", [(True, 100.0), (False, 0.0)])
def test_one_call_and_the_verdict_as_a_score(verdict, score):
    engine = ScriptedEngine(lambda name, inputs: {"error_free": verdict})
    lm = dspy.LM("scripted/judge", engine=engine, cache=False, num_retries=0)
    out = ErrorFreeJudge(RoleLMs(lm, {}))(source="The cat.", translation="Die Katze.", source_lang="English",
                                          target_lang="German")
    assert engine.names() == ["ErrorFree"] and engine.calls[0][1]["translation"] == "Die Katze."
    assert out.score == score and out.errors == [] and out.scale == "esa"
    assert from_score([out.score], 85.0)[0] == float(verdict)  # WMT26's score conversion gives the verdict back


def test_registry_entry():
    judge = JUDGES.get("error-free")
    assert judge.kind == "mt" and judge.scale == "esa" and judge.role_names() == ("error_free",)
    assert not judge.marks_spans and dict(judge.answer_tokens) == {"error_free": 64}
    assert isinstance(judge.build(), ErrorFreeJudge)

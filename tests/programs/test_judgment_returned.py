"""Every registered MT judge's program returns a validated judgment, and makes its calls as the roles it declares.

Each judge runs on the offline scripted LM (:func:`tests.support.mqm_fakes.synthetic_judge`); its result is
what :func:`tribunal.core.mt_judgment.judged` gives (a ``dspy.Prediction`` of the judgment's typed fields), and
the role of every call it made is one of its registry entry's roles, which are its program module's ``ROLES``.
"""

from __future__ import annotations

import dspy
import pytest

from tests.support.mqm_fakes import ScriptedEngine, synthetic_judge
from tribunal.core.judged_error import JudgedError
from tribunal.core.judges import JUDGES, build_judge, load
from tribunal.core.judgment_step import Step
from tribunal.core.mt_judgment import MTJudgment, judgments_of
from tribunal.programs.mqm.roles import current_call

SOURCE, TRANSLATIONS = "Der Hund bellt laut.", ["The dog barks loudly.", "The cat barks."]


def _run(name: str) -> tuple[list[MTJudgment], list[dspy.Prediction], set[str]]:
    roles: set[str] = set()

    def responder(signature: str, inputs: dict) -> dict:
        roles.add(current_call()[1])
        return synthetic_judge(signature, inputs)

    program = build_judge(name)
    languages = dict(source_lang="German", target_lang="English")
    with dspy.context(lm=dspy.LM("openai/scripted", engine=ScriptedEngine(responder), cache=False, num_retries=0)):
        if JUDGES.get(name).together:
            out = program(source=SOURCE, candidates=TRANSLATIONS, **languages)
            return judgments_of(out, len(TRANSLATIONS)), list(out.judgments), roles
        outs = [program(source=SOURCE, translation=t, **languages) for t in TRANSLATIONS]
    return [MTJudgment.of(o) for o in outs], outs, roles


@pytest.mark.parametrize("name", JUDGES.names("mt"))
def test_every_mt_judge_returns_a_validated_judgment_as_a_prediction(name):
    judgments, predictions, _ = _run(name)
    for judgment, prediction in zip(judgments, predictions):
        assert isinstance(prediction, dspy.Prediction)  # DSPy attaches its usage tracking to a Prediction
        assert "debates" not in prediction.keys()  # a debate is steps: MTJudgment.debates reads them
        assert all(isinstance(e, JudgedError) for e in prediction.errors)
        assert all(isinstance(s, Step) for s in prediction.transcript) and prediction.transcript
        assert MTJudgment.of(prediction) == judgment


@pytest.mark.parametrize("name", JUDGES.names("mt"))
def test_every_call_is_made_as_a_role_the_judge_declares(name):
    _, _, roles = _run(name)
    assert roles and roles <= set(JUDGES.get(name).role_names())


@pytest.mark.parametrize("name", JUDGES.names("mt"))
def test_the_registry_reads_each_judges_roles_from_its_program(name):
    judge = JUDGES.get(name)
    assert isinstance(judge.roles, str), "an entry points at its program's ROLES, it does not list them again"
    assert judge.roles.startswith("tribunal.programs.mqm.")  # by path: the registry imports no program
    declared = load(judge.roles)
    assert judge.role_names() == declared and len(set(declared)) == len(declared)
    groups = {group for role, group in judge.role_groups}
    assert {role for role, _ in judge.role_groups} | groups <= set(declared)
    assert {role for role, _ in judge.answer_tokens} <= set(declared)

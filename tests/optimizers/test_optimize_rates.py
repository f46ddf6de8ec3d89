"""``optimize --rpm/--tpm`` reach the pacer of every role's model (tribunal.optimizers.lm_roles)."""

from __future__ import annotations

from tribunal.core.pacing_gate import pacer_of
from tribunal.optimizers.lm_roles import build_role_lms
from tribunal.optimizers.optimize_job import OptimizeRequest


def test_the_rates_pace_the_task_and_teacher_models():
    request = OptimizeRequest(program="gemba-mqm", optimizer="labeled", train="t", dev="d", lm="openai/rate-task",
                              teacher_lm="openai/rate-teacher", rpm=120, tpm=90000)
    lms = build_role_lms(request.lm, request.teacher_lm, None, None, False, cache=False,
                         limits={"rpm": request.rpm, "tpm": request.tpm})
    for lm in (lms.task, lms.teacher):
        pacer = pacer_of(lm)
        assert pacer.rate("requests") == 120 and pacer.rate("tokens") == 90000
    assert pacer_of(lms.task) is not pacer_of(lms.teacher)  # each model its own budget
    assert pacer_of(lms.task.copy(rollout_id=1)) is pacer_of(lms.task)  # a re-ask's copy keeps the budget

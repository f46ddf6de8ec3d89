"""Dev evaluation: an LM or answer failure makes an item unscored; a bug in the program propagates."""

from __future__ import annotations

import dspy
import pytest
from dspy.utils.exceptions import LMServerError

from tribunal.optimizers.dev_eval import evaluate_program
from tribunal.optimizers.metric_base import JudgeMetric, Outcome


class Exact(JudgeMetric):
    def judge(self, gold, pred) -> Outcome:
        return Outcome(score=float(pred.answer == gold.answer), feedback="")


def _examples(n: int = 4) -> list[dspy.Example]:
    return [dspy.Example(question=str(k), answer=str(k)).with_inputs("question") for k in range(n)]


def _program(fail_on: str, err: Exception):
    def program(question: str) -> dspy.Prediction:
        if question == fail_on:
            raise err
        return dspy.Prediction(answer=question)
    return program


@pytest.mark.parametrize("threads", [1, 3])
def test_a_bug_in_the_program_propagates(threads):
    with pytest.raises(TypeError, match="a bug"):
        evaluate_program(_program("2", TypeError("a bug")), _examples(), Exact(), threads=threads)


def test_an_lm_failure_makes_its_item_unscored():
    score = evaluate_program(_program("2", LMServerError("server down")), _examples(), Exact(), threads=2)
    assert score.unscored == 1 and score.scored == 3
    [reason] = score.reasons
    assert reason.startswith("program failed: LMServerError") and "server down" in reason

"""Each of the six optimizers, offline, on a toy task where only tuning unlocks the right answers.

The scripted task LM answers correctly only when the prompt carries demos (few-shot optimizers) or
the key phrase the scripted prompt/reflection LM proposes (MIPROv2, SIMBA, GEPA; demos do not help
there), so "tuned beats untuned on dev" can only pass if the optimizer really did its job.
"""

from __future__ import annotations


import dspy
import pytest

from tests.optimizers.toy_task import KEY_PHRASE, ToyEngine, ToyJudge, toy_examples, toy_lm
from tribunal.optimizers.dev_eval import evaluate_program
from tribunal.optimizers.equiv_metric import EquivalenceMetric
from tribunal.optimizers.registry import TuningContext, optimizer_spec, plan, run_plan

TRAIN, DEV = toy_examples(16), toy_examples(8, offset=100)

# optimizer -> (budget, unlocked by demos?, unlocked by the proposed phrase?, uses a prompt LM?)
CASES = {
    "labeled": (4, True, False, False),
    "bootstrap": (2, True, False, False),
    "random-search": (2, True, False, False),
    "mipro": (4, False, True, True),
    "simba": (2, False, True, True),
    "gepa": (40, False, True, True),
}


@pytest.mark.parametrize("name", list(CASES))
def test_tuned_beats_untuned_on_dev(name):
    budget, by_demos, by_phrase, prompt = CASES[name]
    engine = ToyEngine(unlock_by_demos=by_demos, unlock_by_phrase=by_phrase)
    task = toy_lm(engine)
    proposer = toy_lm(ToyEngine(), "toy/prompt") if prompt else None
    metric = EquivalenceMetric()
    ctx = TuningContext(metric=metric, task_lm=task, budget=budget, seed=0, train=TRAIN, dev=DEV, prompt_lm=proposer,
                        threads=1, demos=2)
    with dspy.context(lm=task):
        untuned = evaluate_program(ToyJudge(), DEV, metric, threads=1)
        compiled = run_plan(plan(optimizer_spec(name), ctx), ToyJudge(), TRAIN, seed=0)
        tuned = evaluate_program(compiled, DEV, metric, threads=1)
    assert untuned.score == pytest.approx(0.5)  # "same" everywhere: half right
    assert tuned.score > untuned.score, (name, tuned.score)
    assert tuned.unscored == 0 and untuned.unscored == 0
    judge = compiled.judge
    if by_phrase:
        assert KEY_PHRASE in judge.signature.instructions  # the instruction the proposer supplied was adopted
    else:
        assert judge.demos  # demos were added

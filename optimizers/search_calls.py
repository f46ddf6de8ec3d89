"""How many LM calls each optimizer's search makes, as its registry entry declares it (``OptimizerSpec.calls``).

A rule counts *program runs* (the judge run once on one example: as many LM calls as the judge makes
per item, :attr:`tribunal.core.judges.Judge.calls`) on the task LM and on the teacher, and the calls
of the prompt LM (instruction proposals, advice, reflections), each as a low-high range where the
count depends on the answers. Read from DSPy 3.4's source, with tribunal's knobs
(:mod:`tribunal.optimizers.registry`); the dev evaluations ``tribunal optimize`` adds around any
optimizer (untuned, tuned, the objective's re-scoring) are counted by the estimate
(:mod:`tribunal.optimizers.optimize_estimate`), not here.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Callable

Span = tuple[int, int]


@dataclass(frozen=True)
class SearchSize:
    """What a rule reads: ``--budget``, the data sizes, the demo cap and the program's predictors."""

    budget: int
    train: int
    dev: int
    demos: int
    predictors: int = 1
    teacher: bool = False
    """Whether ``--teacher-lm`` was given (SIMBA samples one trajectory model from it)."""
    minibatch: int = 3
    """GEPA's reflection minibatch (3, or the segment sampler's size under a corpus objective)."""


@dataclass(frozen=True)
class SearchRuns:
    task: Span = (0, 0)
    """Program runs on the task LM (candidates on dev or minibatches, SIMBA's trajectories on train)."""
    teacher: Span = (0, 0)
    """Program runs of the teacher bootstrapping demos on train examples (one at a time)."""
    prompt: Span = (0, 0)
    """Calls of the prompt LM."""
    candidates: int = 1
    """Programs the objective may re-score on dev (``--objective`` other than ``item``)."""


@dataclass(frozen=True)
class SearchCalls:
    rule: str
    count: Callable[[SearchSize], SearchRuns]


def _bootstrap_runs(demos: int, train: int) -> Span:
    """BootstrapFewShot, one round: the teacher runs train examples in order until ``demos`` succeed."""
    return (min(demos, train), train) if demos > 0 else (0, 0)


def _add(*spans: Span) -> Span:
    return sum(s[0] for s in spans), sum(s[1] for s in spans)


def labeled(size: SearchSize) -> SearchRuns:
    return SearchRuns()


def bootstrap(size: SearchSize) -> SearchRuns:
    return SearchRuns(teacher=_bootstrap_runs(size.budget, size.train))


def random_search(size: SearchSize) -> SearchRuns:
    n = size.budget
    seeded = [_bootstrap_runs(random.Random(seed).randint(1, max(1, size.demos)), size.train) for seed in range(n)]
    evaluations = (n + 3) * size.dev
    return SearchRuns(task=(evaluations, evaluations),
                      teacher=_add(_bootstrap_runs(size.demos, size.train), *seeded), candidates=n + 3)


def mipro(size: SearchSize) -> SearchRuns:
    trials, candidates = size.budget, max(2, size.budget // 2)
    if size.dev > 35:
        batch = min(35, size.dev)
        task = (size.dev + trials * batch, size.dev + trials * batch + (trials // 5 + 1) * size.dev)
    else:
        task = ((trials + 1) * size.dev,) * 2
    bootstraps = max(0, candidates - 2)  # DSPy's demo sets: zero-shot, labelled, then bootstraps
    teacher = (min(size.demos, size.train) + (bootstraps - 1) if bootstraps else 0, bootstraps * size.train)
    summary = 1 + min(9, max(0, math.ceil(size.train / 10) - 1)) + 1
    proposals = size.predictors * candidates
    return SearchRuns(task=task, teacher=teacher, prompt=(proposals, summary + 3 * proposals), candidates=trials + 1)


def simba(size: SearchSize) -> SearchRuns:
    steps, candidates, batch = size.budget, max(2, size.budget // 2), min(32, size.train)
    on_teacher = batch * steps if size.teacher else 0
    trajectories = batch * candidates * steps - on_teacher
    new = min(candidates + 1, batch) * batch * steps
    final = min(steps + 1, candidates + 1) * size.train
    low = trajectories + new + final
    return SearchRuns(task=(low, low), teacher=(on_teacher, on_teacher),
                      prompt=(0 if size.demos > 0 else min(candidates + 1, batch) * steps,
                              min(candidates + 1, batch) * steps), candidates=min(steps + 1, candidates + 1))


def gepa(size: SearchSize) -> SearchRuns:
    budget, batch = size.budget, size.minibatch
    low = max(budget, size.dev)
    high = low + max(2 * batch, 10) + size.dev  # the last iteration may pass the budget
    reflections = math.ceil(max(0, budget - size.dev) / (2 * batch)) + 1 if budget > size.dev else 0
    return SearchRuns(task=(low, high), prompt=(0, reflections), candidates=8)


RULES = {
    "labeled": SearchCalls("no call chooses the demos (labelled training examples are copied in): no train calls",
                           labeled),
    "bootstrap": SearchCalls(
        "the teacher runs the program on train examples one at a time until N demos pass the metric: "
        "between min(N, train) and train runs (how many pass depends on the answers)", bootstrap),
    "random-search": SearchCalls(
        "N+3 candidates (zero-shot, labelled, unshuffled bootstrap, N seeded bootstraps) each judged on all of dev; "
        "each of the N+1 bootstraps runs the teacher on train examples until its demo count passes (seeded, "
        "1 to the demo cap): between that count and train runs each", random_search),
    "mipro": SearchCalls(
        "N trials + the default program, each judged on all of dev (a 35-item minibatch when dev has more, with "
        "a full dev evaluation every 5 trials); max(2, N//2)-2 bootstraps of the teacher on train; prompt LM: "
        "a dataset summary (2-11 calls) and per predictor max(2, N//2) instruction proposals of 1-3 calls each",
        mipro),
    "simba": SearchCalls(
        "N steps on a minibatch of min(32, train): max(2, N//2) trajectories per example (one on the teacher "
        "with --teacher-lm), up to max(2, N//2)+1 new candidates judged on the minibatch, each made by a demo "
        "(no call) or a rule (1 prompt-LM call); then the step winners judged on all of train", simba),
    "gepa": SearchCalls(
        "N metric calls in all (program runs on dev and reflection minibatches of 3), GEPA's own budget; the last "
        "iteration may pass it by two minibatches and a dev evaluation; 1 reflection call per iteration that "
        "proposes (none when its minibatch already scores perfectly)", gepa),
}
"""Each optimizer's rule, by its registry name (read by :data:`tribunal.optimizers.registry.OPTIMIZERS`)."""

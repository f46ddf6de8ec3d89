"""Labelled demos for programs whose training examples are not demos as they stand.

DSPy's LabeledFewShot (and the labelled part of BootstrapFewShot) puts raw training examples into
every predictor's demos. A TED MQM example has the human errors but none of an MT judge's output
fields, so the adapter drops it and "labelled demos" silently do nothing. A :class:`DemoLabeler`
maps each example to the demo a given predictor can use (per program, from
:data:`tribunal.programs.mqm.labels.PROGRAM_LABELS`); the two optimizers below use it where DSPy
would use the raw examples. Programs without a mapping (the equivalence judges, whose suite
examples already carry ``verdict``) keep DSPy's behaviour unchanged.
"""

from __future__ import annotations

import random
from typing import Any, Callable, Mapping

from dspy.teleprompt import BootstrapFewShot, LabeledFewShot

from tribunal.programs.mqm.labels import PROGRAM_LABELS


class DemoLabeler:
    """Per-predictor conversion of labelled examples into demos, for one program."""

    def __init__(self, program: str, labels: Mapping[str, Callable[[Any], Any]]):
        self.program = program
        self.labels = dict(labels)

    def demos(self, predictor: str, examples: list[Any]) -> list[Any]:
        """The demos ``predictor`` can use, in example order; none for a predictor without labels."""
        label = self.labels.get(predictor)
        if label is None:
            return []
        # An example whose spans nobody marked (gold_errors None: a score-only label) would show "no errors".
        marked = [example for example in examples if example.get("gold_errors", ()) is not None]
        return [demo for demo in map(label, marked) if demo is not None]

    @staticmethod
    def derived_from(demo: Any, example: Any) -> bool:
        """Whether ``demo`` was made from ``example`` (same inputs), so it would leak its answer."""
        keys = example.inputs().keys()
        return all(demo.get(key) == example.get(key) for key in keys)


def labeler_for(program: str) -> DemoLabeler | None:
    """The labeler registered for ``program``, or None when its examples are demos already."""
    labels = PROGRAM_LABELS.get(program)
    return DemoLabeler(program, labels) if labels is not None else None


class LabelledFewShot(LabeledFewShot):
    """LabeledFewShot, with each predictor's demos sampled from the examples its labeler can convert."""

    def __init__(self, k: int = 16, labeler: DemoLabeler | None = None):
        super().__init__(k=k)
        self.labeler = labeler

    def compile(self, student, *, trainset, sample=True):
        if self.labeler is None:
            return super().compile(student, trainset=trainset, sample=sample)
        self.student, self.trainset = student.reset_copy(), trainset
        rng = random.Random(0)  # DSPy's own fixed seed; run_plan has already shuffled by --seed
        for name, predictor in self.student.named_predictors():
            pool = self.labeler.demos(name, trainset)
            predictor.demos = rng.sample(pool, min(self.k, len(pool))) if sample else pool[: self.k]
        return self.student


class LabelledBootstrap(BootstrapFewShot):
    """BootstrapFewShot whose teacher demos and labelled student demos come from the labeler."""

    def __init__(self, *args: Any, labeler: DemoLabeler | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.labeler = labeler

    def _prepare_student_and_teacher(self, student, teacher):
        untuned_teacher = getattr(teacher if teacher is not None else student, "_compiled", False) is False
        super()._prepare_student_and_teacher(student, teacher)
        if self.labeler is not None and self.max_labeled_demos and untuned_teacher:
            # DSPy gave the teacher raw examples (useless as demos here): relabel them.
            labelled = LabelledFewShot(k=self.max_labeled_demos, labeler=self.labeler)
            self.teacher = labelled.compile(self.teacher.reset_copy(), trainset=self.trainset)

    def _bootstrap_one_example(self, example, round_idx=0):
        if self.labeler is None:
            return super()._bootstrap_one_example(example, round_idx)
        # DSPy drops the example itself from the teacher's demos by equality; a labelled demo is a
        # different object made from it, so drop it by its inputs instead.
        saved = {name: predictor.demos for name, predictor in self.teacher.named_predictors()}
        for _, predictor in self.teacher.named_predictors():
            predictor.demos = [d for d in predictor.demos if not self.labeler.derived_from(d, example)]
        try:
            return super()._bootstrap_one_example(example, round_idx)
        finally:
            for name, predictor in self.teacher.named_predictors():
                predictor.demos = saved[name]

    def _train(self):
        if self.labeler is None:
            return super()._train()
        rng = random.Random(0)
        for name, predictor in self.student.named_predictors():
            bootstrapped = self.name2traces[name][: self.max_bootstrapped_demos]
            pool = self.labeler.demos(name, self.validation)
            size = max(0, min(self.max_labeled_demos - len(bootstrapped), len(pool)))
            predictor.demos = bootstrapped + rng.sample(pool, size)
        return self.student

"""The DSPy optimizers tribunal offers, each with an adapter from ``--budget N`` to its own knobs.

==============  =================================  ============================================
name            DSPy optimizer                     ``--budget N`` means
==============  =================================  ============================================
labeled         LabeledFewShot                     N labelled demos per predictor
bootstrap       BootstrapFewShot                   up to N bootstrapped (+ N labelled) demos
random-search   BootstrapFewShotWithRandomSearch   N candidate programs (+3 baselines) scored on dev
mipro           MIPROv2                            N trials; max(2, N // 2) instruction/demo candidates
simba           SIMBA                              N steps of max(2, N // 2) candidates each
gepa            GEPA                               N metric calls (rollouts) in total
==============  =================================  ============================================

``labeled`` and ``bootstrap`` take their labelled demos through the program's ``DemoLabeler``
(:mod:`tribunal.optimizers.labelled_demos`), so TED MQM examples become typed demos for MT judges.
``--teacher-lm`` runs the teacher (bootstrapping demos) where the optimizer has one; the prompt LM
(``--prompt-lm``) proposes instructions (MIPROv2), advice (SIMBA) or reflections (GEPA).
Optimizers without a seed knob get their training set shuffled by ``--seed`` instead.

Under a corpus-level ``--objective`` (:mod:`tribunal.optimizers.objectives`) every optimizer's
candidates are re-chosen by it on dev (:mod:`tribunal.optimizers.objective_selection`); GEPA also
keeps proposals by it (:mod:`tribunal.optimizers.gepa_objective`) with feedback naming ranking
errors (:mod:`tribunal.optimizers.ranking_feedback`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from tribunal.errors import UserError
from tribunal.optimizers.search_calls import RULES, SearchCalls


@dataclass
class TuningContext:
    """Everything an adapter may read."""

    metric: Any  # a JudgeMetric
    budget: int
    seed: int
    train: list[Any]
    dev: list[Any]
    task_lm: Any = None
    teacher_lm: Any = None
    prompt_lm: Any = None
    threads: int = 4
    demos: int = 4
    labeler: Any = None
    """A ``DemoLabeler`` turning training examples into each predictor's demos (None: they are demos)."""
    objective: Any = None
    """The parsed ``--objective`` (:class:`~tribunal.optimizers.objectives.Objective`; None: ``item``)."""

    @property
    def corpus_objective(self) -> bool:
        """Whether the objective is more than the per-item metric (optimizers then choose by it)."""
        return self.objective is not None and not self.objective.is_item


@dataclass
class Plan:
    """A configured optimizer, what to pass to ``compile`` and the knob values to log."""

    optimizer: Any
    compile_kwargs: dict[str, Any]
    knobs: dict[str, Any]
    shuffle_train: bool = False


@dataclass(frozen=True)
class OptimizerSpec:
    name: str
    dspy_name: str
    budget_meaning: str
    default_budget: int
    adapter: Callable[[TuningContext], Plan]
    takes_teacher: bool = False
    takes_prompt_lm: bool = False
    calls: SearchCalls | None = None
    """How many calls its search makes (:mod:`tribunal.optimizers.search_calls`; ``optimize --estimate``)."""


def _teacher(ctx: TuningContext) -> dict[str, Any]:
    return {"lm": ctx.teacher_lm} if ctx.teacher_lm is not None else {}


def _labels(ctx: TuningContext) -> dict[str, Any]:
    return {"labels": ctx.labeler.program if ctx.labeler is not None else "examples"}


def _labeled(ctx: TuningContext) -> Plan:
    from tribunal.optimizers.labelled_demos import LabelledFewShot  # heavy: pulls in dspy, pydantic

    return Plan(LabelledFewShot(k=ctx.budget, labeler=ctx.labeler), {"sample": True},
                {"k": ctx.budget, **_labels(ctx)}, shuffle_train=True)


def _bootstrap(ctx: TuningContext) -> Plan:
    from tribunal.optimizers.labelled_demos import LabelledBootstrap  # heavy: pulls in dspy, pydantic

    knobs = {"max_bootstrapped_demos": ctx.budget, "max_labeled_demos": ctx.budget, "max_rounds": 1,
             "metric_threshold": ctx.metric.success_threshold}
    optimizer = LabelledBootstrap(metric=ctx.metric, teacher_settings=_teacher(ctx), labeler=ctx.labeler, **knobs)
    return Plan(optimizer, {}, {**knobs, **_labels(ctx)}, shuffle_train=True)


def _random_search(ctx: TuningContext) -> Plan:
    from dspy.teleprompt import BootstrapFewShotWithRandomSearch  # heavy: dspy, pydantic

    knobs = {"num_candidate_programs": ctx.budget, "max_bootstrapped_demos": ctx.demos,
             "max_labeled_demos": ctx.demos, "metric_threshold": ctx.metric.success_threshold}
    optimizer = BootstrapFewShotWithRandomSearch(metric=ctx.metric, teacher_settings=_teacher(ctx),
                                                 num_threads=ctx.threads, **knobs)
    return Plan(optimizer, {"valset": ctx.dev}, knobs, shuffle_train=True)


def _mipro(ctx: TuningContext) -> Plan:
    from dspy.teleprompt import MIPROv2  # heavy: dspy, pydantic

    candidates = max(2, ctx.budget // 2)
    minibatch = len(ctx.dev) > 35
    knobs = {"num_trials": ctx.budget, "num_candidates": candidates, "max_bootstrapped_demos": ctx.demos,
             "max_labeled_demos": ctx.demos, "minibatch": minibatch, "seed": ctx.seed}
    optimizer = MIPROv2(metric=ctx.metric, prompt_model=ctx.prompt_lm, task_model=ctx.task_lm,
                        teacher_settings=_teacher(ctx), auto=None, num_candidates=candidates,
                        max_bootstrapped_demos=ctx.demos, max_labeled_demos=ctx.demos, num_threads=ctx.threads,
                        seed=ctx.seed, verbose=False, metric_threshold=ctx.metric.success_threshold)
    compile_kwargs = {"valset": ctx.dev, "num_trials": ctx.budget, "minibatch": minibatch,
                      "minibatch_size": min(35, len(ctx.dev)), "seed": ctx.seed}
    return Plan(optimizer, compile_kwargs, knobs)


def _simba(ctx: TuningContext) -> Plan:
    from dspy.teleprompt import SIMBA  # heavy: dspy, pydantic

    knobs = {"max_steps": ctx.budget, "num_candidates": max(2, ctx.budget // 2),
             "bsize": min(32, len(ctx.train)), "max_demos": ctx.demos}
    teacher = {"lm": ctx.teacher_lm} if ctx.teacher_lm is not None else None
    metric = ctx.metric
    if ctx.corpus_objective:  # same item score; its feedback (ranking errors for MT) reaches SIMBA's rule prompt
        metric = _feedback_metric(ctx)
        knobs["feedback"] = "ranking" if metric is not ctx.metric.with_feedback else "item"
    optimizer = SIMBA(metric=metric, prompt_model=ctx.prompt_lm, teacher_settings=teacher, num_threads=ctx.threads,
                      **{k: v for k, v in knobs.items() if k != "feedback"})
    return Plan(optimizer, {"seed": ctx.seed}, knobs)


def _feedback_metric(ctx: TuningContext) -> Any:
    """The item metric with feedback text: naming ranking errors for MT judges, its own otherwise."""
    from tribunal.optimizers.mt_metric import MQMMetric  # heavy: pulls in scipy, numpy
    from tribunal.optimizers.ranking_feedback import RankingFeedback  # heavy: pulls in scipy, numpy

    return RankingFeedback(ctx.metric) if isinstance(ctx.metric, MQMMetric) else ctx.metric.with_feedback


def _gepa(ctx: TuningContext) -> Plan:
    from dspy.teleprompt import GEPA  # heavy: dspy, pydantic

    from tribunal.optimizers.gepa_objective import CORPUS_MINIBATCH, ObjectiveAcceptance, SegmentBatchSampler  # startup: kept out of `tribunal --help`

    knobs = {"max_metric_calls": ctx.budget, "reflection_minibatch_size": min(3, len(ctx.train)), "seed": ctx.seed}
    feedback, settings = ctx.metric.with_feedback, dict(knobs)
    if ctx.corpus_objective:  # whole segments per minibatch, proposals kept by the objective, ranking feedback (MT)
        feedback = _feedback_metric(ctx)
        sampler = SegmentBatchSampler(ctx.train, CORPUS_MINIBATCH, ctx.seed)
        knobs |= {"reflection_minibatch_size": sampler.size, "batch_sampler": "segments",
                  "acceptance": ctx.objective.name}
        settings |= {"reflection_minibatch_size": None,  # GEPA takes a size or a sampler, not both
                     "gepa_kwargs": {"acceptance_criterion": ObjectiveAcceptance(ctx.objective, ctx.train),
                                     "batch_sampler": sampler}}
    optimizer = GEPA(metric=feedback, reflection_lm=ctx.prompt_lm, num_threads=ctx.threads, track_stats=True,
                     **settings)
    return Plan(optimizer, {"valset": ctx.dev}, knobs)


OPTIMIZERS: dict[str, OptimizerSpec] = {spec.name: spec for spec in (
    OptimizerSpec("labeled", "LabeledFewShot", "labelled demos per predictor", 4, _labeled, calls=RULES["labeled"]),
    OptimizerSpec("bootstrap", "BootstrapFewShot", "bootstrapped demos per predictor", 4, _bootstrap,
                  takes_teacher=True, calls=RULES["bootstrap"]),
    OptimizerSpec("random-search", "BootstrapFewShotWithRandomSearch", "candidate programs", 8, _random_search,
                  takes_teacher=True, calls=RULES["random-search"]),
    OptimizerSpec("mipro", "MIPROv2", "trials", 12, _mipro, takes_teacher=True, takes_prompt_lm=True,
                  calls=RULES["mipro"]),
    OptimizerSpec("simba", "SIMBA", "optimization steps", 4, _simba, takes_teacher=True, takes_prompt_lm=True,
                  calls=RULES["simba"]),
    OptimizerSpec("gepa", "GEPA", "metric calls", 200, _gepa, takes_prompt_lm=True, calls=RULES["gepa"]),
)}


def optimizer_names() -> list[str]:
    return list(OPTIMIZERS)


def optimizer_spec(name: str) -> OptimizerSpec:
    """The spec registered under ``name``; a clear error otherwise."""
    if name not in OPTIMIZERS:
        raise UserError(f"unknown optimizer {name!r} (available: {', '.join(OPTIMIZERS)})")
    return OPTIMIZERS[name]


def plan(spec: OptimizerSpec, ctx: TuningContext) -> Plan:
    """Check the LM roles and the budget, then configure the optimizer."""
    if ctx.teacher_lm is not None and not spec.takes_teacher:
        raise UserError(f"--teacher-lm: optimizer {spec.name} takes no teacher LM")
    if ctx.budget < 1:
        raise UserError(f"--budget {ctx.budget}: must be at least 1")
    if spec.takes_prompt_lm and ctx.prompt_lm is None:
        raise UserError(f"optimizer {spec.name} needs a prompt/reflection LM")
    return spec.adapter(ctx)


def run_plan(plan_: Plan, student: Any, train: list[Any], seed: int) -> Any:
    """Compile ``student`` with the planned optimizer (on a seeded shuffle of ``train`` where planned)."""
    import random  # startup: kept out of `tribunal --help`

    if plan_.shuffle_train:
        train = list(train)
        random.Random(seed).shuffle(train)
    return plan_.optimizer.compile(student, trainset=train, **plan_.compile_kwargs)

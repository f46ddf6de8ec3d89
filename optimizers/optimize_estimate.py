"""``tribunal optimize --estimate``: what a tuning job would spend, rehearsed on its dev set, nothing sent.

One dev evaluation is rehearsed twice with a :class:`~tribunal.eval.estimate.rehearsal.RehearsalEngine`
in place of the HTTP engine (the real program, adapter and dev items; made-up answers):

- ``low``: the untuned program with the answers that end the work soonest (its calls, prompt tokens and
  shortest valid answers per dev item);
- ``high``: the program with the most demos the optimizer may give it (labelled training examples, as
  many as its demo cap) with the answers that keep it going longest (the token limit as each answer).

Each figure per *program run* (the judge on one example) is then scaled by the runs the job makes: the
dev set judged twice (untuned, tuned), the objective's re-scoring of candidates (``--objective`` other
than ``item``), and the optimizer's search as its registry entry declares it
(:mod:`tribunal.optimizers.search_calls`): task-LM runs, teacher runs (on the task LM without
``--teacher-lm``), prompt-LM calls. A prompt-LM call is counted as showing up to
:data:`PROMPT_EXAMPLES` examples' prompts and answering up to the token limit (a rough figure, said so).
Calls are every LM call, response-cache hits included; the dollars assume none is a hit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import dspy

from tribunal.core.judges import JUDGES
from tribunal.errors import UserError
from tribunal.eval.estimate.estimate import DECODE_PER_S, PREFILL_PER_S, Estimate, Range, RoleEstimate
from tribunal.eval.estimate.mt_estimate import answer_limit
from tribunal.eval.estimate.rehearsal import RehearsalEngine, SignatureWatch
from tribunal.eval.estimate.tokens import counter_for
from tribunal.optimizers.dev_eval import evaluate_program
from tribunal.optimizers.labelled_demos import LabelledFewShot, labeler_for
from tribunal.optimizers.objective_selection import FINALISTS
from tribunal.optimizers.optimize_request import METRICS, OptimizeRequest
from tribunal.optimizers.optimize_setup import load_job_inputs
from tribunal.optimizers.search_calls import SearchRuns, SearchSize
from tribunal.programs.lm import DEFAULT_SERVER_MAX_TOKENS, LMSettings, build_lm
from tribunal.programs.local_models import is_local
from tribunal.programs.pricing import token_rates

PROMPT_EXAMPLES = 3
DEMO_CAPPED = ("labeled", "bootstrap")  # optimizers whose --budget is the demo cap


@dataclass(frozen=True)
class PerRun:
    """One program run's figures (a dev item judged), low and high."""

    calls: Range
    prompt_tokens: Range
    completion_tokens: Range


@dataclass
class OptimizeEstimate:
    """An :class:`~tribunal.eval.estimate.estimate.Estimate` plus the job's runs, in one JSON object."""

    estimate: Estimate
    extra: dict[str, Any]

    def as_json(self) -> dict[str, Any]:
        return {**self.estimate.as_json(), **self.extra}


def _rehearse(program: Any, examples: list, metric: Any, scenario: str, model: str, counter: Any,
              limit: int, max_tokens: int | None) -> list:
    watch = SignatureWatch()
    engine = RehearsalEngine(scenario, counter, watch, limit, answers_in_json=is_local(model))
    lm = build_lm(LMSettings(model=model, cache=False, max_tokens=max_tokens), engine=engine)
    with dspy.context(lm=lm, callbacks=[*dspy.settings.callbacks, watch]):
        evaluate_program(program, examples, metric, threads=1)
    return engine.calls


def per_run(resolved: Any, train: list, dev: list, metric: Any, demos: int, model: str, counter: Any,
            limit: int, max_tokens: int | None) -> PerRun:
    """One dev evaluation rehearsed low (untuned) and high (``demos`` labelled demos), per dev item."""
    low = _rehearse(resolved.program, dev, metric, "low", model, counter, limit, max_tokens)
    demoed = LabelledFewShot(k=demos, labeler=labeler_for(resolved.name)).compile(resolved.program, trainset=train) \
        if demos else resolved.program
    high = _rehearse(demoed, dev, metric, "high", model, counter, limit, max_tokens)
    n = max(1, len(dev))
    return PerRun(Range(len(low) / n, len(high) / n),
                  Range(sum(c.prompt_tokens for c in low) / n, sum(c.prompt_tokens for c in high) / n),
                  Range(sum(c.completion_tokens for c in low) / n, sum(c.max_tokens or limit for c in high) / n))


def _scaled(runs: Range, run: PerRun, model: str, concurrency: int) -> RoleEstimate:
    role = RoleEstimate(Range(runs.low * run.calls.low, runs.high * run.calls.high),
                        Range(runs.low * run.prompt_tokens.low, runs.high * run.prompt_tokens.high),
                        Range(runs.low * run.completion_tokens.low, runs.high * run.completion_tokens.high),
                        model=model)
    rates = token_rates(model)
    role.usd = None if rates is None else Range(
        role.prompt_tokens.low * rates[0] + role.completion_tokens.low * rates[1],
        role.prompt_tokens.high * rates[0] + role.completion_tokens.high * rates[1])
    role.wall_s = Range((role.prompt_tokens.low / PREFILL_PER_S + role.completion_tokens.low / DECODE_PER_S)
                        / concurrency,
                        (role.prompt_tokens.high / PREFILL_PER_S + role.completion_tokens.high / DECODE_PER_S)
                        / concurrency)
    return role


def _prompt_call(run: PerRun, limit: int) -> PerRun:
    """A prompt-LM call as a run of one call: a task call's prompt, up to :data:`PROMPT_EXAMPLES` runs' prompts."""
    one = max(run.calls.low, 1e-9)
    return PerRun(Range(1, 1), Range(run.prompt_tokens.low / one, PROMPT_EXAMPLES * run.prompt_tokens.high),
                  Range(run.completion_tokens.low / one, limit))


def dev_evaluations(objective: str, search: SearchRuns) -> Range:
    """Dev evaluations ``optimize`` adds: untuned and tuned, plus the objective's re-scoring of finalists."""
    if objective == "item":
        return Range(2, 2)
    return Range(3, 2 + min(FINALISTS, max(1, search.candidates)))


def job_runs(request: OptimizeRequest, search: SearchRuns, dev: int) -> dict[str, Range]:
    """Program runs per LM role (``prompt``: its calls), the dev evaluations included."""
    evaluations = dev_evaluations(request.objective, search)
    task = Range(evaluations.low * dev + search.task[0], evaluations.high * dev + search.task[1])
    teacher = Range(*search.teacher)
    runs = {"task": task if request.teacher_lm else task + teacher}
    if request.teacher_lm:
        runs["teacher"] = teacher
    if search.prompt[1]:
        runs["prompt"] = Range(*search.prompt)
    return runs


def _limit(request: OptimizeRequest) -> int:
    """The completion tokens a call may take: ``--max-tokens``, else the model's own (as mt evaluate's estimate)."""
    if is_local(request.lm):
        return request.max_tokens or DEFAULT_SERVER_MAX_TOKENS
    return answer_limit(LMSettings(model=request.lm, max_tokens=request.max_tokens))


def _rule(spec: Any, resolved: Any, request: OptimizeRequest) -> str:
    judge = JUDGES.find(resolved.name)
    per_item = judge.calls.rule if judge is not None and judge.calls is not None else "the program's own calls"
    teacher = "" if request.teacher_lm or not spec.takes_teacher else "; the teacher runs on the task LM"
    rescore = "" if request.objective == "item" else \
        f", and up to {FINALISTS} candidates re-scored on dev by --objective {request.objective}"
    return (f"{spec.name}: {spec.calls.rule}{teacher}; plus the dev set judged twice (untuned, tuned){rescore}; "
            f"one program run = {per_item}")


def estimate_optimize(request: OptimizeRequest, tracking: Any) -> OptimizeEstimate:
    """What ``request``'s job would spend (see the module docstring); sends nothing, makes no MLflow run."""
    spec, train, dev, resolved = load_job_inputs(request, tracking)
    if spec.calls is None:
        raise UserError(f"--estimate: optimizer {spec.name} declares no call rule (OptimizerSpec.calls)")
    metric = METRICS[train.kind]()
    budget = request.budget or spec.default_budget
    demos = budget if spec.name in DEMO_CAPPED else request.demos
    counter, limit = counter_for(request.lm), _limit(request)
    run = per_run(resolved, train.examples, dev.examples, metric, demos, request.lm, counter, limit,
                  request.max_tokens)
    size = SearchSize(budget=budget, train=len(train.examples), dev=len(dev.examples), demos=demos,
                      predictors=len(resolved.program.predictors()), teacher=bool(request.teacher_lm),
                      minibatch=min(3, len(train.examples)))
    search = spec.calls.count(size)
    runs = job_runs(request, search, len(dev.examples))
    models = {"task": request.lm, "teacher": request.teacher_lm or request.lm, "prompt": request.prompt_lm or request.lm}
    concurrency = {"task": request.threads, "teacher": 1, "prompt": 1}  # bootstrapping and proposing go one at a time
    by_role = {role: _scaled(n, run if role != "prompt" else _prompt_call(run, limit), models[role], concurrency[role])
               for role, n in runs.items()}
    total = RoleEstimate(model=request.lm)
    for role in by_role.values():
        total.calls, total.prompt_tokens = total.calls + role.calls, total.prompt_tokens + role.prompt_tokens
        total.completion_tokens, total.wall_s = total.completion_tokens + role.completion_tokens, total.wall_s + role.wall_s
        total.usd = None if total.usd is None or role.usd is None else total.usd + role.usd
    estimate = Estimate(f"{resolved.label} tuned by {spec.name} (budget {budget})", len(dev.examples), by_role, total,
                        _rule(spec, resolved, request), counter.name, counter.exact, request.threads,
                        notes=_notes(counter, total, runs))
    extra = {"optimizer": spec.name, "budget": budget, "train_items": len(train.examples),
             "dev_items": len(dev.examples),
             "program_runs": {role: n.as_json() for role, n in runs.items()},
             "per_run": {"calls": run.calls.as_json(2), "prompt_tokens": run.prompt_tokens.as_json(1),
                         "completion_tokens": run.completion_tokens.as_json(1)}}
    return OptimizeEstimate(estimate, extra)


def _notes(counter: Any, total: RoleEstimate, runs: dict[str, Range]) -> list[str]:
    notes = []
    if not counter.exact:
        notes.append(f"prompt tokens counted as {counter.name}: the model's tokenizer is not known offline")
    notes.append(f"wall time assumes {PREFILL_PER_S:.0f} prompt and {DECODE_PER_S:.0f} answer tokens a second per "
                 "call, --threads at once on the task LM, one at a time for the teacher and the prompt LM")
    if "prompt" in runs:
        notes.append(f"prompt-LM tokens are rough: each call counted as up to {PROMPT_EXAMPLES} examples' prompts "
                     "and an answer up to the token limit")
    if total.usd is None:
        notes.append("no price: a model is not in LiteLLM's bundled price table")
    notes.append("calls include response-cache hits (repeated evaluations of one candidate); the dollars assume "
                 "none is one")
    notes.append("re-asks of unusable answers are not counted (each call may be re-asked a few times)")
    return notes

"""What a run will cost before it starts: calls, tokens, dollars and wall time, per role and in total.

An :class:`Estimate` is made from two rehearsals of the run (:mod:`tribunal.eval.estimate.rehearsal`),
one per scenario of :mod:`tribunal.eval.estimate.answers`: ``low`` (answers that end the work soonest)
and ``high`` (answers that keep it going longest). Per role:

- calls: those of the ``low`` and the ``high`` rehearsal (equal for a program whose calls are fixed);
- prompt tokens: the prompts of each rehearsal as they would be sent, counted with the model's tokenizer
  (or 4 characters a token, flagged: ``tokens_exact`` False);
- completion tokens: high = the token limit of every ``high`` call; low = the calls times the average
  answer of that role in an earlier tracked run of the same program and model (``measured``), else the
  shortest answer the signature admits (its field markers and empty values);
- dollars: LiteLLM's bundled prices (batch prices for a batch run); None for an unpriced model;
- wall time: the calls' seconds at the run's concurrency: seconds a call measured in that earlier run,
  else :data:`PREFILL_PER_S` and :data:`DECODE_PER_S` (an assumption, said in ``notes``).

Re-asks of unusable answers are not in the range (they depend on a real model's failures).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from tribunal.eval.estimate.rehearsal import RehearsedCall
from tribunal.programs.pricing import token_rates

PREFILL_PER_S = 2000.0  # prompt tokens a second, when no earlier run measured the model
DECODE_PER_S = 50.0  # answer tokens a second, likewise


@dataclass(frozen=True)
class Range:
    low: float
    high: float

    def __add__(self, other: "Range") -> "Range":
        return Range(self.low + other.low, self.high + other.high)

    def as_json(self, digits: int | None = None) -> dict[str, float]:
        if digits is None:
            return {"low": int(self.low), "high": int(self.high)}
        return {"low": round(self.low, digits), "high": round(self.high, digits)}


ZERO = Range(0, 0)


@dataclass
class RoleEstimate:
    calls: Range = ZERO
    prompt_tokens: Range = ZERO
    completion_tokens: Range = ZERO
    usd: Range | None = ZERO
    wall_s: Range = ZERO
    model: str = ""

    def as_json(self) -> dict[str, Any]:
        return {"calls": self.calls.as_json(), "prompt_tokens": self.prompt_tokens.as_json(),
                "completion_tokens": self.completion_tokens.as_json(),
                "usd": None if self.usd is None else self.usd.as_json(6), "wall_s": self.wall_s.as_json(1),
                "model": self.model}


@dataclass
class Measured:
    """What an earlier tracked run of the same program and model measured, per role."""

    run_id: str
    completion_per_call: dict[str, float] = field(default_factory=dict)
    seconds_per_call: float | None = None


@dataclass
class Estimate:
    program: str
    items: int
    by_role: dict[str, RoleEstimate]
    total: RoleEstimate
    rule: str
    tokenizer: str
    tokens_exact: bool
    concurrency: int
    batch: bool = False
    measured_run: str | None = None
    notes: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        """One JSON object: the total's figures at the top level, ``by_role`` with the same per role."""
        return {**self.total.as_json(), "program": self.program, "items": self.items, "rule": self.rule,
                "tokenizer": self.tokenizer, "tokens_exact": self.tokens_exact, "concurrency": self.concurrency,
                "batch": self.batch, "measured_run": self.measured_run, "notes": self.notes,
                "by_role": {role: e.as_json() for role, e in self.by_role.items()}}


def _sum(calls: list[RehearsedCall], what: str) -> float:
    return float(sum(getattr(c, what) or 0 for c in calls))


def _role_estimate(low: list[RehearsedCall], high: list[RehearsedCall], model: str, limit: int,
                   measured: Measured | None, role: str, batch: bool) -> RoleEstimate:
    per_call = (measured.completion_per_call.get(role) if measured else None)
    completion_low = per_call * len(low) if per_call is not None else _sum(low, "completion_tokens")
    completion = Range(completion_low, float(sum(c.max_tokens or limit for c in high)))
    prompt = Range(_sum(low, "prompt_tokens"), _sum(high, "prompt_tokens"))
    rates = token_rates(model, batch) if model else None
    usd = None if rates is None else Range(prompt.low * rates[0] + completion.low * rates[1],
                                           prompt.high * rates[0] + completion.high * rates[1])
    return RoleEstimate(Range(len(low), len(high)), prompt, completion, usd, ZERO, model)


def _wall(role: RoleEstimate, concurrency: int, measured: Measured | None) -> Range:
    if measured is not None and measured.seconds_per_call is not None:
        return Range(role.calls.low * measured.seconds_per_call / concurrency,
                     role.calls.high * measured.seconds_per_call / concurrency)
    return Range((role.prompt_tokens.low / PREFILL_PER_S + role.completion_tokens.low / DECODE_PER_S) / concurrency,
                 (role.prompt_tokens.high / PREFILL_PER_S + role.completion_tokens.high / DECODE_PER_S) / concurrency)


def build_estimate(program: str, items: int, low: list[RehearsedCall], high: list[RehearsedCall],
                   models: Mapping[str, str], default_model: str, limit: int, rule: str, tokenizer: Any,
                   concurrency: int, measured: Measured | None = None, batch: bool = False) -> Estimate:
    """The estimate of two rehearsals (see the module docstring); ``models``: ``{role: model}`` of the roles
    on their own LM; ``limit``: the completion tokens of a call whose request carries no limit."""
    roles = list(dict.fromkeys([c.role for c in high] + [c.role for c in low]))
    by_role: dict[str, RoleEstimate] = {}
    total = RoleEstimate(model=default_model)
    for role in roles:
        estimate = _role_estimate([c for c in low if c.role == role], [c for c in high if c.role == role],
                                  models.get(role, default_model), limit, measured, role, batch)
        estimate.wall_s = _wall(estimate, concurrency, measured)
        by_role[role] = estimate
        total.calls += estimate.calls
        total.prompt_tokens += estimate.prompt_tokens
        total.completion_tokens += estimate.completion_tokens
        total.usd = None if total.usd is None or estimate.usd is None else total.usd + estimate.usd
        total.wall_s += estimate.wall_s
    notes = []
    if not tokenizer.exact:
        notes.append(f"prompt tokens counted as {tokenizer.name}: the model's tokenizer is not known offline")
    if measured is None:
        notes.append(f"no earlier tracked run of {program} on {default_model}: answers' low end is the shortest "
                     f"valid answer; wall time assumes {PREFILL_PER_S:.0f} prompt and {DECODE_PER_S:.0f} answer "
                     "tokens a second per call")
    if total.usd is None:
        notes.append("no price: a model is not in LiteLLM's bundled price table")
    notes.append("re-asks of unusable answers are not counted (each call may be re-asked a few times)")
    return Estimate(program, items, by_role, total, rule, tokenizer.name, tokenizer.exact, concurrency, batch,
                    measured.run_id if measured else None, notes)

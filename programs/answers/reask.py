"""The re-ask rule: one unusable answer costs a re-ask, not the item. Every LM role of tribunal calls through :func:`ask`.

An answer the tolerant adapter cannot read, whose typed value breaks its schema, or that fails the
caller's ``check`` is re-asked up to N times (``--reasks N``, config ``lm.reasks``, default
:data:`DEFAULT_REASKS`):

- the unusable answer is evicted from DSPy's response cache (memory and disk) at once, so no later
  call or run is ever served it, and ``--retry-unscored`` really asks the provider again;
- the re-ask shows the model its answer and one line saying what was wrong with it (two extra turns
  after DSPy's own prompt, :func:`feedback_turns`), and carries a ``rollout_id`` of its own. In DSPy
  3.4 the rollout id is part of the cache key on both engines and is stripped before the request is
  sent, so it bypasses the cache even at temperature 0, where DSPy warns that it does not change
  sampling: what differs on the wire is the feedback (or, after a truncation, the token limit);
- an answer cut at ``finish_reason: "length"`` that repeats itself (a *runaway*: its tail is one span
  repeated, :mod:`.runaway`) is re-asked at the same token limit, never a larger one (more room only
  buys a longer loop), without its answer shown back and with one line of feedback,
  :data:`RUNAWAY_FEEDBACK`; each runaway is reported to the call observers (the usage meter counts
  them per role, apart from the re-asks); still a runaway on the last ask, the call fails as
  "runaway answer (repeated itself until max_tokens=N)";
- an answer cut at ``finish_reason: "length"`` that was still saying something new is re-asked within
  the same budget, without feedback (a cut answer is not a wrong one), each time with twice the
  previous token limit, up to :data:`TOKEN_GROWTH` times the run's limit (``--max-tokens``; a server
  that cuts at random gains nothing from more, and a model that runs on costs at most 4x); cut on the
  last ask, the call fails as "truncated at max_tokens=N (raise it with --max-tokens)", N being the
  last limit asked for;
- a refusal (no field at all, :func:`~.unusable.is_refusal`) is re-asked like the rest and, if it
  persists, fails as a refusal.

On a paid API without ``--max-tokens`` (an LM marked by :func:`fit_answers`), the first ask carries
the token limit that fits the role's answer (``answer_tokens``: the judge registry's declaration,
:meth:`~tribunal.core.judges.JudgeRegistry.answer_tokens`), not the provider's maximum; a cut answer
grows from there as above.

A readable, valid answer costs exactly one call. After the last re-ask the call raises the
:class:`~.unusable.UnusableAnswer` of its kind, with a one-line message and the raw answer.
Re-asks are visible to meters through :func:`current_reask` (the kind of answer being re-asked).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, Callable, Generator, Iterator

from pydantic import ValidationError
from dspy.utils.exceptions import AdapterParseError
import dspy

from tribunal.core.judges import JUDGES
from tribunal.core.run_context import current, run_context
from tribunal.programs.call_observers import acall_predictor, call_predictor, report_runaway
from tribunal.programs.answers.provider_calls import SeenCall, watching
from tribunal.programs.answers.runaway import repetition
from tribunal.programs.answers.unusable import (FINAL, InvalidValue, RunawayAnswer, TruncatedAnswer, UnusableAnswer,
                                               is_refusal, one_line)

DEFAULT_REASKS = 2
MAX_REASKS = 10
FEEDBACK_OPENING = "Your previous answer could not be used:"
ANSWER_SHOWN = 4000  # characters of the unusable answer shown back to the model
TOKEN_GROWTH = 4  # a cut answer's re-asks double the token limit, up to 4x the run's own
RUNAWAY_FEEDBACK = "it repeated itself until it was cut at the token limit; answer once, briefly, in the required format"
"""The one line a runaway's re-ask adds (after :data:`FEEDBACK_OPENING`)."""
ROLLOUT_STRIDE = 10**15  # re-ask rollout ids never meet a caller's own (hypothesis runs use 48-bit ids)


@dataclass(frozen=True)
class Feedback:
    """What the re-ask tells the model: its previous answer and what was wrong with it."""

    answer: str | None
    problem: str


@dataclass(frozen=True)
class Problem:
    kind: str
    text: str
    answer: str | None
    max_tokens: int | None = None


def current_feedback() -> Feedback | None:
    """The feedback of the re-ask being formatted on this thread (None for a first ask)."""
    return current().feedback


def current_reask() -> str | None:
    """The kind of unusable answer the LM call on this thread re-asks about (None: not a re-ask)."""
    return current().reask


def feedback_turns(feedback: Feedback, requirements: str) -> list[dict[str, str]]:
    """The two turns a re-ask adds after the prompt: the unusable answer, then what was wrong, in one line."""
    turns = []
    if feedback.answer and feedback.answer.strip():
        shown = feedback.answer if len(feedback.answer) <= ANSWER_SHOWN else feedback.answer[:ANSWER_SHOWN] + " [...]"
        turns.append({"role": "assistant", "content": shown})
    turns.append({"role": "user", "content": f"{FEEDBACK_OPENING} {feedback.problem}. Answer again. {requirements}"})
    return turns


def asks_of(prediction: Any) -> int:
    """How many times :func:`ask` asked for ``prediction`` (1: no re-ask)."""
    return int(getattr(prediction, "_tribunal_asks", 1))


def reasks_of(lm: Any) -> int:
    """How many times ``lm``'s unusable answers are re-asked (:func:`set_reasks`; default :data:`DEFAULT_REASKS`)."""
    value = getattr(lm, "tribunal_reasks", None)
    return DEFAULT_REASKS if value is None else int(value)


def set_reasks(lm: Any, reasks: int | None) -> Any:
    """Give ``lm`` its re-ask count (None: the default); returns ``lm``."""
    if lm is not None and reasks is not None:
        if not 0 <= reasks <= MAX_REASKS:
            raise ValueError(f"reasks {reasks}: expected 0 to {MAX_REASKS}")
        lm.tribunal_reasks = int(reasks)
    return lm


@contextlib.contextmanager
def _reasking(feedback: Feedback | None, kind: str | None) -> Iterator[None]:
    with run_context(feedback=feedback, reask=kind):
        yield


def _text(seen: list[SeenCall]) -> str | None:
    outputs = getattr(seen[-1].result, "outputs", None) if seen else None
    if not outputs:
        return None
    first = outputs[0]
    return first.get("text") if isinstance(first, dict) else first


def _problem(signature: Any, out: Any, err: Exception | None, seen: list[SeenCall],
             check: Callable[[Any], Any] | None) -> Problem | None:
    """What is wrong with this attempt's answer (None: nothing, it is used)."""
    last = seen[-1] if seen else None
    answer = getattr(err, "lm_response", None) if err is not None else _text(seen)
    if last is not None and last.finish_reason == "length":
        looped = repetition(answer)
        if looped is not None:
            return Problem("runaway", f"the answer repeated itself until the token limit ({looped.describe()})",
                           answer, last.max_tokens)
        return Problem("truncated", "the answer was cut at the token limit", answer, last.max_tokens)
    if err is not None:
        if (last is not None and last.finish_reason == "content_filter") or is_refusal(signature, answer):
            return Problem("refusal", "it gave none of the fields asked for", answer)
        lines = [line for line in str(err).splitlines() if line.strip()]
        kind = "invalid" if isinstance(err, InvalidValue) else "unparseable"
        return Problem(kind, lines[0] if lines else "it could not be read", answer)
    if check is not None:
        try:
            check(out)
        except (UnusableAnswer, ValidationError) as invalid:
            return Problem("invalid", str(invalid) if isinstance(invalid, UnusableAnswer) else one_line(invalid),
                           answer)
    return None


def _final(problem: Problem, role: str | None, asks: int) -> UnusableAnswer:
    who = f"{role}, " if role else ""
    times = "once" if asks == 1 else f"{asks} times"
    quoted = f': "{" ".join(problem.answer.split())[:120]}"' if problem.kind == "refusal" and problem.answer else ""
    message = f"{problem.text} ({who}asked {times}){quoted}"
    if problem.kind in ("truncated", "runaway"):
        final = (RunawayAnswer if problem.kind == "runaway" else TruncatedAnswer)(message, problem.answer, asks,
                                                                                  problem.max_tokens)
    else:
        final = FINAL[problem.kind](message, problem.answer, asks)
    final.role = role
    return final


def fit_answers(lm: Any, fit: bool = True) -> Any:
    """Mark ``lm`` as sending each role's fitted token limit (:func:`ask`'s ``answer_tokens``); returns ``lm``."""
    if lm is not None:
        lm.tribunal_fits_answers = bool(fit)
    return lm


def fitted_tokens(lm: Any, role: str | None, answer_tokens: int | None = None) -> int | None:
    """The token limit ``role``'s first ask carries on ``lm``: None unless ``lm`` fits answers
    (:func:`fit_answers`); then ``answer_tokens``, else the role's limit in the judge registry."""
    if not getattr(lm, "tribunal_fits_answers", False):
        return None
    return answer_tokens or (JUDGES.answer_tokens().get(role) if role else None)


def _token_key(lm: Any) -> str:
    return "max_completion_tokens" if "max_completion_tokens" in (getattr(lm, "kwargs", None) or {}) else "max_tokens"


def ask(predictor: Any, *, check: Callable[[Any], Any] | None = None, role: str | None = None,
        config: dict[str, Any] | None = None, answer_tokens: int | None = None, **inputs: Any) -> Any:
    """``predictor(**inputs)``, re-asking unusable answers by the rule above; raises the last one's
    :class:`~.unusable.UnusableAnswer` when no ask gave a usable answer.

    ``check(prediction)`` may raise :class:`~.unusable.UnusableAnswer` (or a pydantic error) for an
    answer that parsed but cannot be used; ``role`` names the caller in the message; ``answer_tokens``
    is the limit that fits its answer (default: the judge registry's for ``role``), sent only where the
    LM fits answers (:func:`fitted_tokens`).
    """
    rule = _asks(predictor, check, role, config, answer_tokens)
    step = next(rule)
    while True:
        attempt, feedback, kind = step
        out, err = None, None
        with watching() as seen, _reasking(feedback, kind):
            try:
                out = call_predictor(predictor, **inputs, config=attempt)  # observed: programs/call_observers.py
            except AdapterParseError as parse_error:
                err = parse_error
        try:
            step = rule.send((out, err, seen))
        except StopIteration as done:
            return done.value


async def aask(predictor: Any, *, check: Callable[[Any], Any] | None = None, role: str | None = None,
               config: dict[str, Any] | None = None, answer_tokens: int | None = None, **inputs: Any) -> Any:
    """:func:`ask` for coroutines: the same rule (:func:`_asks`), each ask ``await predictor.acall(...)``."""
    rule = _asks(predictor, check, role, config, answer_tokens)
    step = next(rule)
    while True:
        attempt, feedback, kind = step
        out, err = None, None
        with watching() as seen, _reasking(feedback, kind):
            try:
                out = await acall_predictor(predictor, **inputs, config=attempt)
            except AdapterParseError as parse_error:
                err = parse_error
        try:
            step = rule.send((out, err, seen))
        except StopIteration as done:
            return done.value


Asks = Generator[tuple[dict[str, Any], "Feedback | None", "str | None"], tuple[Any, Exception | None, list], Any]


def _asks(predictor: Any, check: Callable[[Any], Any] | None, role: str | None, config: dict[str, Any] | None,
          answer_tokens: int | None) -> Asks:
    """The re-ask rule, apart from the calls: yields ``(attempt config, feedback, kind)`` for each ask and
    is sent ``(prediction, parse error, seen calls)`` back; returns the usable prediction or raises the
    final :class:`~.unusable.UnusableAnswer` (one rule for :func:`ask` and :func:`aask`)."""
    lm = getattr(predictor, "lm", None) or dspy.settings.lm
    limit, base = reasks_of(lm), dict(config or {})
    fitted = fitted_tokens(lm, role, answer_tokens)
    if fitted and not {"max_tokens", "max_completion_tokens"} & set(base):
        base[_token_key(lm)] = fitted
    feedback: Feedback | None = None
    kind: str | None = None
    tokens: int | None = None  # the raised token limit of a cut answer's re-ask (None: the LM's own)
    ceiling: int | None = None  # TOKEN_GROWTH x the first limit a cut answer reported
    asked = 0
    while True:
        attempt = dict(base)
        if asked:
            attempt["rollout_id"] = ROLLOUT_STRIDE * asked + int(base.get("rollout_id") or 0)
        if tokens:
            attempt[_token_key(lm)] = tokens
        out, err, seen = yield attempt, feedback, kind
        asked += 1
        problem = _problem(predictor.signature, out, err, seen, check)
        if problem is None:
            out._tribunal_asks = asked  # an attribute, not an output field (see asks_of)
            return out
        for call in seen:
            call.evict()
        if problem.kind == "runaway":
            report_runaway()
        if asked > limit:
            raise _final(problem, role, asked)
        if problem.kind == "truncated":  # one budget for every kind: a cut answer is re-asked like the rest
            if problem.max_tokens:
                ceiling = ceiling or TOKEN_GROWTH * problem.max_tokens
                tokens = min(2 * problem.max_tokens, ceiling)
            feedback = None
        elif problem.kind == "runaway":  # the same limit (``tokens`` is kept); the loop is not shown back
            feedback = Feedback(None, RUNAWAY_FEEDBACK)
        else:
            feedback = Feedback(problem.answer, problem.text)
        kind = problem.kind

"""Answers that cannot be used, what kind they are, and what was wrong with them in one line of words.

Kinds (the re-ask rule, :mod:`.reask`, treats each its own way):

- ``refusal``: the answer carries none of the output fields and no JSON value at all ("I'm sorry, I
  can't help with that."), is empty, or the provider stopped it for its content filter. Recognised by
  what the answer lacks, never by reading its words.
- ``unparseable``: some structure, but not the one asked for (JSON with other keys, a field missing,
  a value of the wrong type).
- ``invalid``: read, but the typed value breaks a constraint of its schema (a chain too short, a score
  out of range) or a check of the program (as many labels as demands).
- ``truncated``: the provider cut the answer at its token limit (``finish_reason: "length"``) while it
  was still saying something new.
- ``runaway``: cut at the token limit too, but its text repeats itself (:mod:`.runaway`): a loop, re-asked
  at the same limit.
"""

from __future__ import annotations

from typing import Any, Literal, get_args, get_origin

from dspy.utils.exceptions import AdapterParseError
from pydantic import BaseModel, ValidationError

from tribunal.programs.answers.coerce import structured
from tribunal.programs.answers.fields import answer_fields

Kind = Literal["refusal", "unparseable", "invalid", "truncated", "runaway"]
KINDS: tuple[str, ...] = get_args(Kind)


class InvalidValue(AdapterParseError):
    """A field was found but its value fails its type or constraints (the re-ask rule's ``invalid`` kind)."""


class UnusableAnswer(ValueError):
    """An answer that cannot be scored; the message says why in one line (the item, vote or slot is unscored).

    ``lm_response`` is the raw answer (when there is one), ``asks`` the number of times it was asked,
    ``role`` the program role that asked (set by the re-ask rule; None when not known).
    """

    kind: str = "invalid"
    label: str = "invalid answer"

    def __init__(self, message: str, lm_response: str | None = None, asks: int = 1, role: str | None = None):
        super().__init__(" ".join(str(message).split()))
        self.lm_response = lm_response
        self.asks = asks
        self.role = role


class RefusedAnswer(UnusableAnswer):
    kind = "refusal"
    label = "refusal"


class UnreadableAnswer(UnusableAnswer):
    kind = "unparseable"
    label = "unparseable answer"


class TruncatedAnswer(UnusableAnswer):
    """Cut at the token limit; ``label`` names the limit and the option that raises it."""

    kind = "truncated"

    def __init__(self, message: str, lm_response: str | None = None, asks: int = 1, max_tokens: int | None = None):
        super().__init__(message, lm_response, asks)
        self.max_tokens = max_tokens
        self.label = (f"truncated at max_tokens={max_tokens} (raise it with --max-tokens)" if max_tokens
                      else "truncated by the server (set a limit with --max-tokens)")


class RunawayAnswer(TruncatedAnswer):
    """Cut at the token limit while repeating itself (:mod:`.runaway`): more tokens would not have helped."""

    kind = "runaway"

    def __init__(self, message: str, lm_response: str | None = None, asks: int = 1, max_tokens: int | None = None):
        super().__init__(message, lm_response, asks, max_tokens)
        self.label = (f"runaway answer (repeated itself until max_tokens={max_tokens})" if max_tokens
                      else "runaway answer (repeated itself until the server cut it)")


FINAL = {"refusal": RefusedAnswer, "unparseable": UnreadableAnswer, "invalid": UnusableAnswer,
         "truncated": TruncatedAnswer, "runaway": RunawayAnswer}


def is_refusal(signature: Any, completion: str | None) -> bool:
    """No output field in any layout and no JSON value in the text: the model answered something else."""
    text = (completion or "").strip()
    if not text or text == "None":
        return True
    return not answer_fields(text, list(signature.output_fields)) and isinstance(structured(text), str)


def _where(location: tuple) -> str:
    """``("hypotheses", 0, "causal_chain")`` -> ``hypotheses[0].causal_chain``."""
    text = ""
    for part in location:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "the value"


def _description(annotation: Any, location: tuple) -> str | None:
    """The description of the pydantic field that ``location`` ends in, if it has one."""
    found = None
    for part in location:
        while get_origin(annotation) in (list, tuple) and get_args(annotation):
            annotation = get_args(annotation)[0]
        if isinstance(part, str) and isinstance(annotation, type) and issubclass(annotation, BaseModel):
            field = annotation.model_fields.get(part)
            if field is None:
                return None
            found, annotation = field.description, field.annotation
    return found


def validation_problem(err: ValidationError, annotation: Any = None, prefix: tuple = ()) -> str:
    """The first problem of a pydantic error in words, one line, without pydantic's URL or input dump."""
    first = err.errors(include_url=False)[0]
    location = (*prefix, *first.get("loc", ()))
    where, kind, ctx = _where(location), first.get("type", ""), first.get("ctx") or {}
    value = first.get("input")
    if kind in ("too_short", "too_long"):
        actual = ctx.get("actual_length", len(value) if hasattr(value, "__len__") else "?")
        bound = ctx.get("min_length") if kind == "too_short" else ctx.get("max_length")
        noun = "character" if isinstance(value, str) else "item"
        need = "at least" if kind == "too_short" else "at most"
        text = f"{where} has {actual} {noun}{'' if actual == 1 else 's'}; it needs {need} {bound}"
    elif kind == "missing":
        text = f"no value for {where}"
    elif kind in ("value_error", "assertion_error"):  # a validator's own sentence
        message = str(first.get("msg", "")).partition(", ")[2] or str(first.get("msg", ""))
        text = f"{where}: {message}" if location else message
    else:
        shown = repr(value)[:60] if value is not None else "nothing"
        text = f"{where}: {first.get('msg')} (got {shown})"
    described = _description(annotation, tuple(first.get("loc", ()))) if annotation is not None else None
    if not described or kind not in ("too_short", "too_long"):
        return text
    described = described.rstrip(".")
    return f"{text} ({described[0].lower() + described[1:] if described[1:2].islower() else described})"


def one_line(err: BaseException) -> str:
    """What went wrong, in one line: an unusable answer's own message, a pydantic error in words, else the
    first line of the message (never pydantic's URL or a dump of the input)."""
    if isinstance(err, UnusableAnswer):
        return str(err)
    if isinstance(err, ValidationError) and err.errors():
        return validation_problem(err)
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    return lines[0] if lines else type(err).__name__


def describe(err: BaseException) -> str:
    """``"<kind>: <what went wrong>"`` in one line, e.g. ``"refusal: it gave none of the fields asked for ..."``."""
    label = err.label if isinstance(err, UnusableAnswer) else type(err).__name__
    return f"{label}: {one_line(err)}"

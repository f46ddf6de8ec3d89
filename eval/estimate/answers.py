"""Made-up answers for a rehearsal: the values of a signature's output fields under a scenario.

An estimate rehearses the run (:mod:`tribunal.eval.estimate.rehearsal`): the program runs on the real
items with its real demos and adapter, and every LM call is answered here instead of by a model. Two
scenarios bound what a real model's answers can make the program do:

- ``low``: the answers that end the work soonest: every list empty (or at its minimum length), every
  yes/no ``True`` (consensus reached, the other side accepted, the case decided), text empty;
- ``high``: the answers that keep it going longest: :data:`HIGH_ITEMS` errors per list at the last (most severe)
  choice of each closed set, every yes/no ``False``, text filled up to the call's token limit (so a
  later prompt that quotes an answer is as long as a real answer can make it).

The values are built from the field types alone (str, bool, int, float, Literal, lists, pydantic
models), so any signature gets an answer of its own shape; a ``span`` field is a piece of the item's
translation (an error span must be found in it).
"""

from __future__ import annotations

import enum
import types
import typing
from typing import Any, Literal, Union

from pydantic import BaseModel

Scenario = Literal["low", "high"]
FILLER = " lorem"  # one token in the usual BPE vocabularies
HIGH_ITEMS = 3  # items of a list in a ``high`` answer (e.g. errors found: MQM-APE post-edits each one)


def _bound(metadata: Any, name: str) -> Any:
    """A numeric or length bound (``ge``, ``le``, ``min_length``, ...) from pydantic field metadata."""
    for item in metadata or ():
        value = getattr(item, name, None)
        if value is not None:
            return value
    return None


def _number(kind: type, metadata: Any, scenario: Scenario) -> Any:
    low = _bound(metadata, "ge")
    low = _bound(metadata, "gt") if low is None else low
    high = _bound(metadata, "le")
    high = _bound(metadata, "lt") if high is None else high
    value = (low if low is not None else 0) if scenario == "low" or high is None else high
    return kind(value)


def sample_value(annotation: Any, scenario: Scenario, span: str, metadata: Any = (), name: str = "") -> Any:
    """A value of ``annotation`` for ``scenario`` (see the module docstring); ``span``: text for span fields."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return sample_value(args[0], scenario, span, (*metadata, *args[1:]), name)
    if origin in (Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        return None if scenario == "low" and len(options) < len(args) else sample_value(options[0], scenario, span)
    if origin is Literal:
        return args[-1] if scenario == "high" else args[0]
    if origin in (list, tuple, set) or annotation in (list, tuple):
        item = args[0] if args else str
        count = max(_bound(metadata, "min_length") or 0, HIGH_ITEMS if scenario == "high" else 0)
        count = min(count, _bound(metadata, "max_length") or count)
        return [sample_value(item, scenario, span) for _ in range(count)]
    if origin is dict or annotation is dict:
        return {}
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return model_value(annotation, scenario, span)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        members = list(annotation)
        return members[-1] if scenario == "high" else members[0]
    if annotation is bool:
        return scenario == "low"
    if annotation in (int, float):
        return _number(annotation, metadata, scenario)
    if name == "span":
        return span
    return "x" if _bound(metadata, "min_length") else ""


def model_value(model: type[BaseModel], scenario: Scenario, span: str) -> dict[str, Any]:
    """A dict that validates as ``model``: every field given (defaults ignored), in its declared order."""
    return {name: sample_value(field.annotation, scenario, span, field.metadata, name)
            for name, field in model.model_fields.items()}


def sample_outputs(signature: Any, scenario: Scenario, inputs: dict[str, Any]) -> dict[str, Any]:
    """The output-field values of ``signature`` for ``scenario``, on the call's ``inputs``."""
    span = _span_text(inputs)
    return {name: sample_value(field.annotation, scenario, span, field.metadata, name)
            for name, field in signature.output_fields.items()}


def free_text_field(signature: Any) -> str | None:
    """The first plain ``str`` output field (the one a ``high`` answer fills up), None if there is none."""
    return next((name for name, field in signature.output_fields.items() if field.annotation is str), None)


def filler(tokens: int) -> str:
    """About ``tokens`` tokens of text."""
    return (FILLER * max(tokens, 0)).strip()


def _span_text(inputs: dict[str, Any]) -> str:
    translation = str(inputs.get("translation") or inputs.get("hypothesis") or "")
    words = translation.split()
    return words[0] if words else translation[:3]

"""DSPy adapters that read answers the way a person would: one call, the same typed values.

:class:`TolerantChatAdapter` and :class:`TolerantJSONAdapter` format requests exactly as DSPy's
``ChatAdapter`` and ``JSONAdapter`` do (the prompt does not change); only ``parse`` differs. It
finds the output fields in either layout (:mod:`.fields`), coerces each value toward its type
(:mod:`.coerce`) and validates it with pydantic. DSPy's fallback of re-asking in JSON is off: the
same answer is read in the other layout instead, so a readable answer never costs a second call.
An answer that stays unreadable raises DSPy's ``AdapterParseError`` (raw answer attached), and
the runner records the item as *unscored* with that answer.
"""

from __future__ import annotations

import contextlib
import enum
from typing import Any, Iterator, Literal, get_origin

from dspy.adapters.chat_adapter import ChatAdapter
from dspy.adapters.json_adapter import JSONAdapter
from dspy.adapters.utils import apply_output_field_defaults
from dspy.utils.exceptions import AdapterParseError
from pydantic import TypeAdapter, ValidationError

from tribunal.programs.answers.coerce import coerce
from tribunal.programs.answers.fields import answer_fields

AnswerFormat = Literal["chat", "json"]


def _scalar(annotation: Any) -> bool:
    return (annotation in (bool, int, float) or get_origin(annotation) is Literal
            or (isinstance(annotation, type) and issubclass(annotation, enum.Enum)))


def _first_line(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    lines = [line for line in value.splitlines() if line.strip()]
    return lines[0] if lines else value


def _first_problem(err: Exception) -> str:
    """One line: where in the value, what is wrong, and the offending input."""
    if isinstance(err, ValidationError) and err.errors():
        first = err.errors()[0]
        where = ".".join(map(str, first.get("loc", ()))) or "value"
        return f"{where}: {first.get('msg')} (got {str(first.get('input'))[:80]!r})"
    return str(err).split("\n")[0]


def parse_answer(signature: Any, completion: str, prefer: AnswerFormat = "chat", adapter_name: str = "") -> dict:
    """The typed output fields of ``signature`` read from ``completion``; AdapterParseError if unusable."""
    outputs = signature.output_fields
    raw = answer_fields(completion, list(outputs), prefer)
    values: dict[str, Any] = {}
    for name, value in raw.items():
        annotation = outputs[name].annotation
        if _scalar(annotation):
            value = _first_line(value)  # a closing remark after a one-word value is not part of it
        try:
            values[name] = TypeAdapter(annotation).validate_python(coerce(value, annotation))
        except (ValidationError, ValueError, TypeError) as err:
            raise AdapterParseError(adapter_name=adapter_name, signature=signature, lm_response=completion,
                                    message=f"field {name!r}: {_first_problem(err)}", parsed_result=values) from None
    values = apply_output_field_defaults(signature, values)
    if values.keys() != outputs.keys():
        missing = ", ".join(sorted(set(outputs) - set(values)))
        raise AdapterParseError(adapter_name=adapter_name, signature=signature, lm_response=completion,
                                message=f"no value for {missing}", parsed_result=values)
    return values


def asks_for_json(lm: Any) -> bool:
    """Whether ``lm``'s engine asks for JSON answers (a local model, whose server holds them to the schema)."""
    return bool(getattr(getattr(lm, "engine", None), "answers_in_json", False))


class TolerantChatAdapter(ChatAdapter):
    """DSPy's chat format; answers read tolerantly, in one call. An LM that :func:`asks_for_json` gets DSPy's JSON format."""

    def __init__(self, **kwargs: Any):
        super().__init__(use_json_adapter_fallback=False, **kwargs)

    def __call__(self, lm: Any, lm_kwargs: dict, signature: Any, demos: list, inputs: dict) -> list:
        if asks_for_json(lm):
            return TolerantJSONAdapter(callbacks=self.callbacks)(lm, lm_kwargs, signature, demos, inputs)
        return super().__call__(lm, lm_kwargs, signature, demos, inputs)

    def parse(self, signature: Any, completion: str) -> dict[str, Any]:
        return parse_answer(signature, completion, "chat", type(self).__name__)


class TolerantJSONAdapter(JSONAdapter):
    """DSPy's JSON format; answers read tolerantly, in one call."""

    def parse(self, signature: Any, completion: str) -> dict[str, Any]:
        return parse_answer(signature, completion, "json", type(self).__name__)


ADAPTERS = {"chat": TolerantChatAdapter, "json": TolerantJSONAdapter}


def tolerant_adapter(current: Any = None, answer_format: AnswerFormat | None = None) -> Any:
    """The tolerant adapter for ``answer_format``, else for the kind of ``current`` (DSPy's setting).

    An adapter of another kind that the user configured (e.g. XML) is kept as it is.
    """
    if answer_format is not None:
        return ADAPTERS[answer_format]()
    if current is None or isinstance(current, (TolerantChatAdapter, TolerantJSONAdapter)):
        return current or TolerantChatAdapter()
    if isinstance(current, JSONAdapter):
        return TolerantJSONAdapter()
    if type(current) is ChatAdapter:
        return TolerantChatAdapter()
    return current


@contextlib.contextmanager
def tolerant_answers(answer_format: AnswerFormat | None = None) -> Iterator[None]:
    """Predictor calls inside read their answers with the tolerant adapter."""
    import dspy

    adapter = tolerant_adapter(dspy.settings.adapter, answer_format)
    if adapter is dspy.settings.adapter:
        yield
        return
    with dspy.context(adapter=adapter):
        yield

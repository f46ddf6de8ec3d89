"""DSPy adapters that read answers the way a person would: one call, the same typed values.

:class:`TolerantChatAdapter` and :class:`TolerantJSONAdapter` format requests exactly as DSPy's
``ChatAdapter`` and ``JSONAdapter`` do (the prompt does not change); only ``parse`` differs. It
finds the output fields in either layout (:mod:`.fields`), coerces each value toward its type
(:mod:`.coerce`) and validates it with pydantic. DSPy's fallback of re-asking in JSON is off: the
same answer is read in the other layout instead, so a readable answer never costs a second call.
An answer that stays unreadable raises DSPy's ``AdapterParseError`` (raw answer attached, the problem
in one line); :func:`tribunal.programs.answers.reask.ask` re-asks it, and a re-ask's prompt ends with
the unusable answer and that line (:class:`_FeedbackTurns`). A field's own constraints
(``OutputField(ge=0, le=100)``) are validated with its type. The prompt text is DSPy's, formatted
with less CPU (:class:`_FastFormatting`, :mod:`tribunal.programs.dspy_speedups`).
"""

from __future__ import annotations

import contextlib
import enum
from functools import lru_cache
from typing import Annotated, Any, Iterator, Literal, get_origin

from dspy.adapters.chat_adapter import ChatAdapter
from dspy.adapters.json_adapter import JSONAdapter
from dspy.adapters.utils import apply_output_field_defaults
from dspy.utils.exceptions import AdapterParseError
from pydantic import TypeAdapter, ValidationError
import dspy

from tribunal.programs.answers.coerce import coerce, structured, without_format_hint
from tribunal.programs.answers.fields import answer_fields
from tribunal.programs.answers.provider_calls import last_seen
from tribunal.programs.answers.reask import current_feedback, feedback_turns
from tribunal.programs.answers.unusable import InvalidValue, validation_problem
from tribunal.programs.dspy_speedups import FieldStructures, field_text

AnswerFormat = Literal["chat", "json"]


def _scalar(annotation: Any) -> bool:
    return (annotation in (bool, int, float) or get_origin(annotation) is Literal
            or (isinstance(annotation, type) and issubclass(annotation, enum.Enum)))


def _first_line(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    lines = [line for line in value.splitlines() if line.strip()]
    return without_format_hint(lines[0]) if lines else value


def _constrained(field: Any) -> Any:
    """The field's annotation with its own constraints (``OutputField(ge=0, le=100)``, ``min_length``)."""
    return Annotated[(field.annotation, *field.metadata)] if field.metadata else field.annotation


@lru_cache(maxsize=512)
def _cached_adapter(annotation: Any) -> TypeAdapter:
    return TypeAdapter(annotation)


def _adapter(annotation: Any) -> TypeAdapter:
    """A validator for ``annotation``, built once per annotation (building one costs more than a validation)."""
    try:
        return _cached_adapter(annotation)
    except TypeError:  # an annotation that cannot be hashed: built for this answer only
        return TypeAdapter(annotation)


def _bare_value(signature: Any, completion: str) -> dict:
    """A one-field answer written as the bare value ("True", "major"), without any header: that field."""
    outputs = signature.output_fields
    if len(outputs) != 1:
        return {}
    (name, field), = outputs.items()
    bare = _scalar(field.annotation) and completion.strip() and isinstance(structured(completion), str)
    return {name: completion} if bare else {}  # a JSON object with other keys is not a bare value


class CutAnswer(AdapterParseError):
    """The provider cut the answer at its token limit: it is never read, even where the part before the cut
    would parse (a repaired JSON list would silently lose the errors after the cut)."""


def _read(signature: Any, completion: str, prefer: AnswerFormat, adapter_name: str) -> dict:
    seen = last_seen()  # the call being read, when the re-ask rule watches it
    if seen is not None and seen.finish_reason == "length":
        limit = f"max_tokens={seen.max_tokens}" if seen.max_tokens else "the server's limit"
        raise CutAnswer(adapter_name=adapter_name, signature=signature, lm_response=completion,
                        message=f"the answer was cut at the token limit ({limit})")
    return parse_answer(signature, completion, prefer, adapter_name)


def parse_answer(signature: Any, completion: str, prefer: AnswerFormat = "chat", adapter_name: str = "") -> dict:
    """The typed output fields of ``signature`` read from ``completion``; AdapterParseError if unusable."""
    outputs = signature.output_fields
    raw = answer_fields(completion, list(outputs), prefer) or _bare_value(signature, completion)
    values: dict[str, Any] = {}
    for name, value in raw.items():
        annotation = outputs[name].annotation
        if _scalar(annotation):
            value = _first_line(value)  # a closing remark after a one-word value is not part of it
        try:
            values[name] = _adapter(_constrained(outputs[name])).validate_python(coerce(value, annotation))
        except (ValidationError, ValueError, TypeError) as err:
            problem = validation_problem(err, annotation, (name,)) if isinstance(err, ValidationError) else (
                f"{name}: {str(err).splitlines()[0]}")
            raise InvalidValue(adapter_name=adapter_name, signature=signature, lm_response=completion,
                               message=problem, parsed_result=values) from None
    values = apply_output_field_defaults(signature, values)
    if values.keys() != outputs.keys():
        missing = ", ".join(sorted(set(outputs) - set(values)))
        found = structured(completion) if not raw else None
        named = f" (its JSON object names {', '.join(map(str, list(found)[:5]))})" if isinstance(found, dict) else ""
        raise AdapterParseError(adapter_name=adapter_name, signature=signature, lm_response=completion,
                                message=f"no value for {missing}{named}", parsed_result=values)
    return values


def asks_for_json(lm: Any) -> bool:
    """Whether ``lm``'s engine asks for JSON answers (a local model, whose server holds them to the schema)."""
    return bool(getattr(getattr(lm, "engine", None), "answers_in_json", False))


class _FeedbackTurns:
    """A re-ask (:mod:`.reask`) adds the unusable answer and what was wrong with it after DSPy's prompt."""

    def format(self, signature: Any, demos: list, inputs: dict) -> list[dict[str, Any]]:
        messages = super().format(signature, demos, inputs)
        feedback = current_feedback()
        if feedback is None:
            return messages
        return messages + feedback_turns(feedback, self.user_message_output_requirements(signature))


_STRUCTURES = FieldStructures()
_SYSTEM_MESSAGES = FieldStructures()


class _FastFormatting:
    """DSPy's prompt text, byte for byte, without rebuilding pydantic adapters on every call (see dspy_speedups)."""

    def format_field_structure(self, signature: Any) -> str:
        dspys = super().format_field_structure
        return _STRUCTURES.get(type(self), signature, lambda: dspys(signature))

    def format_system_message(self, signature: Any) -> str:
        dspys = super().format_system_message
        return _SYSTEM_MESSAGES.get(type(self), signature, lambda: dspys(signature))

    def format_user_message_content(self, signature: Any, inputs: dict[str, Any], prefix: str = "", suffix: str = "",
                                    main_request: bool = False) -> str:
        parts = [prefix] + [f"[[ ## {name} ## ]]\n{field_text(info, inputs[name])}"
                            for name, info in signature.input_fields.items() if name in inputs]
        if main_request:
            requirements = self.user_message_output_requirements(signature)
            if requirements is not None:
                parts.append(requirements)
        parts.append(suffix)
        return "\n\n".join(parts).strip()


class TolerantChatAdapter(_FeedbackTurns, _FastFormatting, ChatAdapter):
    """DSPy's chat format; answers read tolerantly, in one call. An LM that :func:`asks_for_json` gets DSPy's JSON format."""

    def __init__(self, **kwargs: Any):
        super().__init__(use_json_adapter_fallback=False, **kwargs)

    def __call__(self, lm: Any, lm_kwargs: dict, signature: Any, demos: list, inputs: dict) -> list:
        if asks_for_json(lm):
            return TolerantJSONAdapter(callbacks=self.callbacks)(lm, lm_kwargs, signature, demos, inputs)
        return super().__call__(lm, lm_kwargs, signature, demos, inputs)

    async def acall(self, lm: Any, lm_kwargs: dict, signature: Any, demos: list, inputs: dict) -> list:
        """The async counterpart of :meth:`__call__` (the same choice of format)."""
        if asks_for_json(lm):
            return await TolerantJSONAdapter(callbacks=self.callbacks).acall(lm, lm_kwargs, signature, demos, inputs)
        return await super().acall(lm, lm_kwargs, signature, demos, inputs)

    def format_field_with_value(self, fields_with_values: dict) -> str:
        return "\n\n".join(f"[[ ## {field.name} ## ]]\n{field_text(field.info, value)}"
                           for field, value in fields_with_values.items()).strip()

    def parse(self, signature: Any, completion: str) -> dict[str, Any]:
        return _read(signature, completion, "chat", type(self).__name__)


class TolerantJSONAdapter(_FeedbackTurns, _FastFormatting, JSONAdapter):
    """DSPy's JSON format; answers read tolerantly, in one call."""

    def parse(self, signature: Any, completion: str) -> dict[str, Any]:
        return _read(signature, completion, "json", type(self).__name__)


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
    adapter = tolerant_adapter(dspy.settings.adapter, answer_format)
    if adapter is dspy.settings.adapter:
        yield
        return
    with dspy.context(adapter=adapter):
        yield

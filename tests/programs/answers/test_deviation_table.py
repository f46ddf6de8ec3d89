"""The deviation table: every signature in ``signatures/`` x every way real models bend the format.

For each signature a typed answer is sampled from its output annotations (Literals, lists of pydantic
errors, bools, ints, floats, free text), rendered cleanly and with each deviation of
:data:`tests.support.deviations.KINDS` (and all of them at once), in the chat and the JSON layout.
Each rendering must parse to the clean answer's typed values, through a real ``dspy.Predict`` call
with the tolerant adapter, in exactly one LM call.
"""

from __future__ import annotations

import enum
import importlib
import inspect
import pkgutil
from typing import Annotated, Any, Literal, get_args, get_origin

import dspy
import pytest
from dspy.lm15 import Message, Response, TextPart, Usage
from pydantic import BaseModel, TypeAdapter

import tribunal.signatures as signatures_package
from tests.support.deviations import KINDS, render
from tribunal.programs.answers import TolerantChatAdapter, TolerantJSONAdapter, parse_answer


def all_signatures() -> list[type[dspy.Signature]]:
    found: dict[str, type] = {}
    for module in pkgutil.walk_packages(signatures_package.__path__, signatures_package.__name__ + "."):
        for name, obj in inspect.getmembers(importlib.import_module(module.name), inspect.isclass):
            if issubclass(obj, dspy.Signature) and obj is not dspy.Signature and obj.output_fields \
                    and obj.__module__ == module.name:
                found[f"{obj.__module__}.{name}"] = obj
    return [found[k] for k in sorted(found)]


def _bound(metadata: Any, attribute: str) -> Any:
    return next((getattr(m, attribute) for m in metadata or () if getattr(m, attribute, None) is not None), None)


def sample(annotation: Any, name: str = "", index: int = 0, metadata: Any = ()) -> Any:
    """A typical value of ``annotation`` (the longest Literal choice: "untranslated text") that meets its
    constraints (``metadata``: a list's ``min_length`` / ``max_length``, a number's ``ge``)."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return sample(get_args(annotation)[0], name, index, (*metadata, *get_args(annotation)[1:]))
    if annotation is str:
        return {"span": "das  Haus"}.get(name, f"The {name or 'text'} reads well, on the whole.")
    if annotation is bool:
        return index % 2 == 0
    if annotation is int:
        return 2 + index + (_bound(metadata, "ge") or 0)
    if annotation is float:
        return 0.75
    if origin is Literal or (isinstance(annotation, type) and issubclass(annotation, enum.Enum)):
        choices = [c for c in (get_args(annotation) or [m.value for m in annotation]) if isinstance(c, str)]
        return sorted(choices, key=lambda c: (-len(c.split()), -len(c)))[index % len(choices)]
    if origin in (list, tuple):
        size = max(2, _bound(metadata, "min_length") or 0)
        size = min(size, _bound(metadata, "max_length") or size)
        return [sample(get_args(annotation)[0], name, i) for i in range(size)]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation(**{k: sample(f.annotation, k, index, f.metadata) for k, f in annotation.model_fields.items()})
    raise TypeError(f"no sample for {annotation!r}")


def typed_answer(signature: type[dspy.Signature]) -> dict[str, Any]:
    return {name: TypeAdapter(field.annotation).validate_python(sample(field.annotation, name, 0, field.metadata))
            for name, field in signature.output_fields.items()}


class OneAnswerEngine:
    """A DSPy engine that answers every request with the same text and counts the requests."""

    def __init__(self, text: str):
        self.text, self.calls = text, 0

    def complete(self, request):
        self.calls += 1
        return Response(id=None, model="deviating", message=Message.assistant([TextPart(self.text)]),
                        finish_reason="stop", usage=Usage(input_tokens=1, output_tokens=1, total_tokens=2))

    def stream(self, request):
        raise NotImplementedError

    def close(self) -> None:
        pass


SIGNATURES = all_signatures()
VARIANTS = [frozenset()] + [frozenset({kind}) for kind in KINDS] + [frozenset(KINDS)]


def test_the_table_covers_every_signature_and_output_type():
    assert len(SIGNATURES) >= 15
    kinds = {get_origin(f.annotation) or f.annotation for s in SIGNATURES for f in s.output_fields.values()}
    assert {str, bool, int, list, Literal} <= kinds


@pytest.mark.parametrize("layout", ["chat", "json"])
@pytest.mark.parametrize("signature", SIGNATURES, ids=lambda s: s.__name__)
def test_every_deviation_parses_to_the_clean_value_in_one_call(signature, layout):
    expected = typed_answer(signature)
    adapter = TolerantChatAdapter() if layout == "chat" else TolerantJSONAdapter()
    inputs = {name: sample(field.annotation, name) for name, field in signature.input_fields.items()}
    for kinds in VARIANTS:
        text = render(signature, expected, kinds, layout)
        assert parse_answer(signature, text, layout) == expected, (sorted(kinds), text)
        engine = OneAnswerEngine(text)
        with dspy.context(lm=dspy.LM("openai/deviating", engine=engine, cache=False, num_retries=0), adapter=adapter):
            prediction = dspy.Predict(signature)(**inputs)
        assert engine.calls == 1, sorted(kinds)
        assert {k: prediction[k] for k in expected} == expected, (sorted(kinds), text)


@pytest.mark.parametrize("text", [
    "I think this translation is fine, mostly?",
    "[[ ## rationale ## ]]\nfine\n\n[[ ## errors ## ]]\nnone that matter, really",
    '[[ ## rationale ## ]]\nfine\n\n[[ ## errors ## ]]\n[{"span": "x", "subcategory": "vague", "severity": "major"}]',
    '[[ ## rationale ## ]]\nfine\n\n[[ ## errors ## ]]\n[{"span": "x", "subcategory": "mistranslation", '
    '"severity": "somewhat bad"}]',
])
def test_unusable_answers_raise_with_the_raw_answer(text):
    from dspy.utils.exceptions import AdapterParseError

    from tribunal.signatures.mqm.dimensions import AccuracyAssessment

    with pytest.raises(AdapterParseError) as raised:
        parse_answer(AccuracyAssessment, text)
    assert raised.value.lm_response == text


def test_free_text_is_never_read_as_a_label():
    from dspy.utils.exceptions import AdapterParseError

    from tribunal.signatures.equiv_judge import NoRubricEquivalence

    with pytest.raises(AdapterParseError):
        parse_answer(NoRubricEquivalence, "[[ ## verdict ## ]]\nnot the same")
    assert parse_answer(NoRubricEquivalence, "[[ ## verdict ## ]]\n**Same**")["verdict"] == "same"

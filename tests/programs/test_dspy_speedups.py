"""tribunal's adapters write DSPy's prompt text byte for byte, with the faster formatting, and DSPy's own
functions stay as they are."""

from __future__ import annotations

import copy

import dspy
import pytest
from dspy.adapters import utils as adapter_utils
from dspy.adapters.chat_adapter import ChatAdapter
from dspy.adapters.json_adapter import JSONAdapter

from tribunal.programs.answers.adapter import TolerantChatAdapter, TolerantJSONAdapter
from tribunal.programs.dspy_speedups import FieldStructures, field_text, to_json
from tribunal.signatures.mqm.errors import DimensionError
from tribunal.signatures.mqm.esa_score import ESAScore
from tribunal.signatures.mqm.esa_spans import ESASpans

ERROR = DimensionError(span="a word", subcategory="mistranslation", severity="major", dimension="accuracy")


class Mixed(dspy.Signature):
    """Every kind of value a field may hold."""

    text: str = dspy.InputField()
    lines: list[str] = dspy.InputField()
    plain_list: str = dspy.InputField()
    errors: list[DimensionError] = dspy.InputField()
    table: dict = dspy.InputField()
    count: int = dspy.InputField()
    odd: object = dspy.InputField()
    found: list[DimensionError] = dspy.OutputField()
    score: float = dspy.OutputField()


MIXED = dict(text="Die Katze ist \"da\"", lines=["a", "b"], plain_list=["one", "two"], errors=[ERROR, ERROR],
             table={"k": [1, 2], "ü": None}, count=3, odd=object.__new__(object))


def test_values_serialise_as_dspy_serialises_them():
    for value in ([ERROR, ERROR], ERROR, {"k": [1, 2]}, "text", 3.5, None, ("a", 1)):
        assert to_json(value) == adapter_utils.serialize_for_json(value)
        assert to_json(value) == adapter_utils.serialize_for_json(value)  # again, from the remembered adapter
    odd = object()
    assert to_json(odd) == adapter_utils.serialize_for_json(odd) == str(odd)


def test_field_values_are_written_as_dspy_writes_them():
    for name, value in MIXED.items():
        info = Mixed.input_fields[name]
        assert field_text(info, value) == adapter_utils.format_field_value(field_info=info, value=value), name


@pytest.mark.parametrize("ours, theirs", [(TolerantChatAdapter, ChatAdapter), (TolerantJSONAdapter, JSONAdapter)])
@pytest.mark.parametrize("signature, inputs", [
    (Mixed, MIXED),
    (ESASpans, dict(source="The cat.", translation="Die Katze.", source_lang="English", target_lang="German")),
    (ESAScore, dict(source="The cat.", translation="Die Katze.", source_lang="English", target_lang="German",
                    errors=[])),
])
def test_tribunals_adapters_write_dspys_prompt_byte_for_byte(ours, theirs, signature, inputs):
    demo = dspy.Example(**inputs, **{name: None for name in signature.output_fields})
    mine, dspys = ours(), theirs()
    for _ in range(2):  # the second time from the remembered field structure
        assert mine.format(signature, [demo], inputs) == dspys.format(signature, [demo], inputs)


def test_field_structure_is_recomputed_for_a_signature_edited_in_place():
    structures = FieldStructures()

    class Greeting(dspy.Signature):
        name: str = dspy.InputField()
        greeting: str = dspy.OutputField()

    assert structures.get(ChatAdapter, Greeting, lambda: "first") == "first"
    assert structures.get(ChatAdapter, Greeting, lambda: "second") == "first"  # remembered
    assert structures.get(JSONAdapter, Greeting, lambda: "json") == "json"  # per adapter class
    Greeting.model_fields["greeting"] = copy.copy(Greeting.model_fields["greeting"])  # a field replaced in place
    assert structures.get(ChatAdapter, Greeting, lambda: "edited") == "edited"
    derived = Greeting.append("extra", dspy.OutputField(), type_=str)
    assert structures.get(ChatAdapter, derived, lambda: "derived") == "derived"
    Greeting.instructions = "Greet warmly."  # instructions set in place
    assert structures.get(ChatAdapter, Greeting, lambda: "warm") == "warm"


@pytest.mark.parametrize("ours, theirs", [(TolerantChatAdapter, ChatAdapter), (TolerantJSONAdapter, JSONAdapter)])
def test_the_remembered_system_message_follows_the_instructions(ours, theirs):
    class Greeting(dspy.Signature):
        """Greet."""

        name: str = dspy.InputField()
        greeting: str = dspy.OutputField()

    mine, dspys = ours(), theirs()
    for signature in (Greeting, Greeting.with_instructions("Greet in German."), Greeting):
        assert mine.format_system_message(signature) == dspys.format_system_message(signature)
    Greeting.instructions = "Greet in French."
    assert "Greet in French." in mine.format_system_message(Greeting)
    assert mine.format_system_message(Greeting) == dspys.format_system_message(Greeting)


def test_dspys_own_formatting_functions_are_left_as_they_are():
    import dspy.adapters.base as base
    import dspy.adapters.json_adapter as json_adapter

    TolerantChatAdapter().format(Mixed, [], MIXED)
    assert base.serialize_for_json is adapter_utils.serialize_for_json is json_adapter.serialize_for_json
    assert adapter_utils.serialize_for_json.__module__ == "dspy.adapters.utils"
    assert adapter_utils._get_json_schema.__module__ == "dspy.adapters.utils"

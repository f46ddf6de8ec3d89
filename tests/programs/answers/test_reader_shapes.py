"""Answer shapes seen from real small models (SmolLM2-135M, a 0.5B Qwen behind llama.cpp), and problems in words."""

from __future__ import annotations

import pytest
from dspy.utils.exceptions import AdapterParseError
from pydantic import BaseModel, Field, ValidationError

from tribunal.programs.answers import parse_answer
from tribunal.programs.answers.unusable import describe, is_refusal, one_line, validation_problem
from tribunal.signatures.mqm.consensus import ConsensusCheck
from tribunal.signatures.mqm.dimensions import AccuracyAssessment
from tribunal.signatures.mqm.pairwise_quality import PairwiseQuality

ERROR = '{"span": "Haus", "subcategory": "mistranslation", "severity": "major"}'


@pytest.mark.parametrize("errors", [
    f"[AccuracyError]\n{ERROR}",                 # a bracketed label on the line before the error's JSON
    f"[AccuracyError]\n[{ERROR}]",
    f"[Accuracy Error] {ERROR}",
])
def test_a_bracketed_label_before_the_json_is_passed_over(errors):
    values = parse_answer(AccuracyAssessment, f"[[ ## rationale ## ]]\nok\n\n[[ ## errors ## ]]\n{errors}")
    assert [(e.span, e.severity) for e in values["errors"]] == [("Haus", "major")]


def test_a_damaged_list_of_objects_is_still_read_whole():
    text = f'[[ ## rationale ## ]]\nok\n\n[[ ## errors ## ]]\n[{ERROR[:-1]},}}, {ERROR.replace("Haus", "Dach")}]'
    assert [e.span for e in parse_answer(AccuracyAssessment, text)["errors"]] == ["Haus", "Dach"]


@pytest.mark.parametrize("text", [
    "[[ ## consensus ## ]]\nTrue  # note: the value you produce must be True or False\n\n[[ ## completed ## ]]",
    "True  # note: the value you produce must be True or False",  # the bare value, hint echoed
    "True",
    "[[ ## consensus ## ]]\nyes        # note: the value you produce must be True or False",
])
def test_an_echoed_format_hint_and_a_bare_value_are_read(text):
    assert parse_answer(ConsensusCheck, text) == {"consensus": True}


def test_a_bare_literal_with_its_hint_is_read_and_free_text_is_not():
    hint = "  # note: the value you produce must exactly match (no extra characters) one of: A; B"
    assert parse_answer(PairwiseQuality, f"B{hint}") == {"better": "B"}
    with pytest.raises(AdapterParseError):
        parse_answer(PairwiseQuality, "I think the second one is better")


@pytest.mark.parametrize("text, refusal", [
    ("I'm sorry, I can't help with that.", True),
    ("", True),
    ('{"result": "fine", "confidence": 0.9}', False),   # JSON with other keys: unparseable, not a refusal
    ("[[ ## consensus ## ]]\nmaybe", False),
])
def test_a_refusal_is_an_answer_with_no_field_and_no_json(text, refusal):
    assert is_refusal(ConsensusCheck, text) is refusal


def test_problems_are_one_line_in_words_without_pydantic_urls():
    class Chain(BaseModel):
        steps: list[str] = Field(min_length=3, description="Initiating event, intermediate steps, finding.")

    with pytest.raises(ValidationError) as raised:
        Chain(steps=["a"])
    assert one_line(raised.value) == "steps has 1 item; it needs at least 3"
    assert validation_problem(raised.value, Chain) == ("steps has 1 item; it needs at least 3 (initiating event, "
                                                       "intermediate steps, finding)")
    assert "http" not in describe(raised.value) and "\n" not in describe(raised.value)
    with pytest.raises(AdapterParseError) as parsed:
        parse_answer(AccuracyAssessment, '[[ ## rationale ## ]]\nok\n\n[[ ## errors ## ]]\n'
                                         '[{"span": "x", "subcategory": "mistranslation", "severity": "awful"}]')
    assert str(parsed.value).splitlines()[0] == ("errors[0].severity: Input should be 'minor' or 'major' "
                                                 "(got 'awful')")

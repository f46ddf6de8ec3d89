"""JsonRecord: typed fields over a JSON object, dumped with the keys given, in their order."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tribunal.core.judgment_step import Step, debate_summaries


def test_a_record_dumps_the_keys_it_was_given_in_their_order_and_no_default():
    given = {"stage": "stage2", "dimension": "fluency", "rounds": 2, "consensus": None, "decided_by": "fallback",
             "turns": [{"role": "defender", "round": 1, "errors": None}]}
    step = Step.model_validate(given)
    assert step.model_dump() == given and list(step.model_dump()) == list(given)
    assert step.role is None and "role" not in step.model_dump()  # a default it filled in is not written
    assert Step.model_validate_json(step.model_dump_json()).model_dump() == given


def test_a_field_set_later_is_dumped_after_the_given_keys():
    step = Step(stage="joint", role="joint")
    assert list(step.model_copy(update={"dimension": "accuracy"}).model_dump()) == ["stage", "role", "dimension"]
    assert Step.model_construct(stage="x").model_dump() == {"stage": "x"}


def test_other_keys_must_be_json():
    with pytest.raises(ValidationError, match="valid JSON value"):
        Step(stage="x", answer=object())


def test_debates_are_read_off_the_steps_or_off_the_chosen_sample():
    debate = {"stage": "stage2", "dimension": "style", "rounds": 1, "consensus": True, "decided_by": "x", "turns": []}
    steps = [Step.model_validate(debate), Step(stage="stage3", role="judge")]
    assert debate_summaries(steps) == {"style": {"rounds": 1, "consensus": True, "decided_by": "x"}}
    samples = [Step(stage="sample", sample=1, transcript=[]), Step(stage="sample", sample=2, transcript=steps)]
    assert debate_summaries(samples, chosen=2) == debate_summaries(steps) and debate_summaries(samples, chosen=1) == {}

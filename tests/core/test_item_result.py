"""ItemResult: typed parts, journal lines written by the code before the types (with ``debates``) still load."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from tests.support.old_journal_lines import OLD_ENSEMBLE_LINE, OLD_MMAD_LINE, OLD_UNSCORED_LINE
from tribunal.core.item_result import ItemResult
from tribunal.core.judged_error import JudgedError
from tribunal.core.judgment_step import Step


def _without_debates(line: str) -> dict:
    return {k: v for k, v in json.loads(line).items() if k != "debates"}


@pytest.mark.parametrize("line", [OLD_MMAD_LINE, OLD_UNSCORED_LINE, OLD_ENSEMBLE_LINE])
def test_an_old_journal_line_loads_and_is_written_again_as_it_was_but_for_its_debates(line):
    result = ItemResult.model_validate_json(line)
    assert result.model_dump(mode="json") == _without_debates(line)
    assert json.dumps(result.model_dump(mode="json"), ensure_ascii=False) == json.dumps(_without_debates(line),
                                                                                        ensure_ascii=False)
    assert result.debates == json.loads(line)["debates"]  # read off the transcript's steps


def test_an_old_line_gets_its_typed_parts():
    result = ItemResult.model_validate_json(OLD_MMAD_LINE)
    assert isinstance(result.errors[0], JudgedError) and result.errors[0].dimension == "accuracy"
    assert [type(s) for s in result.transcript] == [Step] * 3 and result.transcript[1].rounds == 2
    assert result.transcript[0].errors[0].severity == "major"
    assert result.usage.calls == {"m": 4} and result.usage.counts() == {"calls": {"m": 4}, "failed": {},
                                                                        "prompt_tokens": {"m": 100}}
    assert result.trace is not None and result.trace.calls[0].signature == "AccuracyAssessment"
    assert result.degraded[0].subject == "accuracy" and result.ensemble is None
    unscored = ItemResult.model_validate_json(OLD_UNSCORED_LINE)
    assert unscored.trace is not None and unscored.trace.calls == [] and unscored.debates == {}
    ensemble = ItemResult.model_validate_json(OLD_ENSEMBLE_LINE)
    assert ensemble.ensemble is not None and ensemble.ensemble.chosen == 1
    assert ensemble.transcript[0].transcript[0].decided_by == "round limit"  # a sample's own steps, typed


def test_an_empty_trace_or_ensemble_is_none_and_written_as_before():
    result = ItemResult(key="a", status="scored", score=1.0, trace={}, ensemble={}, usage={})
    assert result.trace is None and result.ensemble is None
    assert result.model_dump()["trace"] == {} and result.model_dump()["ensemble"] == {}
    assert result.model_dump()["usage"] == {} and "debates" not in result.model_dump()


def test_a_malformed_part_is_refused_where_it_is_made():
    with pytest.raises(ValidationError):
        ItemResult(key="a", status="scored", score=1.0, errors=[{"span": "x"}])  # no severity
    with pytest.raises(ValidationError):
        ItemResult(key="a", status="scored", score=1.0, transcript=[{"role": "judge"}])  # a step has a stage

"""ItemResult: typed parts, journal lines written by the code before the types (with ``debates``) still load."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from tribunal.core.item_result import ItemResult
from tribunal.core.judged_error import JudgedError
from tribunal.core.judgment_step import Step

# Written by ItemResult on main before the judgment had a type (journal.append: json.dumps of model_dump(mode="json")).
OLD_MMAD_LINE = '{"key": "k1", "status": "scored", "score": -5.0, "reason": null, "raw": null, "retryable": false, "transient": false, "errors": [{"span": "bank", "subcategory": "mistranslation", "severity": "major", "is_source_error": false, "dimension": "accuracy"}], "transcript": [{"stage": "stage1", "role": "accuracy", "rationale": "r", "errors": [{"span": "bank", "subcategory": "mistranslation", "severity": "major", "is_source_error": false, "dimension": "accuracy"}]}, {"stage": "stage2", "dimension": "accuracy", "rounds": 2, "consensus": true, "decided_by": "consensus check", "turns": [{"role": "opposer", "round": 1, "text": "t", "errors": null}]}, {"stage": "stage3", "role": "judge", "analysis": "a", "answered": [{"span": "bank", "subcategory": "mistranslation", "severity": "major", "is_source_error": false, "dimension": "accuracy"}], "errors": [{"span": "bank", "subcategory": "mistranslation", "severity": "major", "is_source_error": false, "dimension": "accuracy"}]}], "debates": {"accuracy": {"rounds": 2, "consensus": true, "decided_by": "consensus check"}}, "usage": {"calls": {"m": 4}, "failed": {}, "prompt_tokens": {"m": 100}}, "seconds": 1.5, "trace": {"start": 1.0, "end": 2.0, "calls": [{"id": "c1", "stage": "stage1", "role": "accuracy", "subject": null, "reask": null, "signature": "AccuracyAssessment", "start": 1.0, "end": 1.5, "inputs": {"source": "s"}, "outputs": {"errors": [{"span": "bank", "subcategory": "mistranslation", "severity": "major", "is_source_error": false, "dimension": "accuracy"}]}, "error": null, "model": "m", "lm_calls": 1, "lm_failures": 0, "prompt_tokens": 100, "completion_tokens": 5}]}, "ensemble": {}, "degraded": [{"role": "opposer", "reason": "unparseable answer", "stood_in": "the stage-1 annotation", "subject": "accuracy"}]}'
OLD_UNSCORED_LINE = '{"key": "k2", "status": "unscored", "score": null, "reason": "timeout (retries exhausted): x", "raw": null, "retryable": true, "transient": true, "errors": [], "transcript": [], "debates": {}, "usage": {}, "seconds": 0.0, "trace": {"start": 1.0, "end": 2.0, "calls": []}, "ensemble": {}, "degraded": []}'
OLD_ENSEMBLE_LINE = '{"key": "k3", "status": "scored", "score": -1.0, "reason": null, "raw": null, "retryable": false, "transient": false, "errors": [], "transcript": [{"stage": "sample", "sample": 1, "rollout_id": 1, "status": "scored", "score": -1.0, "errors": [], "debates": {"fluency": {"rounds": 1, "consensus": false, "decided_by": "round limit"}}, "transcript": [{"stage": "stage2", "dimension": "fluency", "rounds": 1, "consensus": false, "decided_by": "round limit", "turns": []}]}, {"stage": "combine", "samples": 1, "rule": "mean", "score": -1.0, "scores": [-1.0], "kept": [1], "usable": 1, "dropped": [], "chosen": 1, "std": 0.0, "min": -1.0, "max": -1.0}], "debates": {"fluency": {"rounds": 1, "consensus": false, "decided_by": "round limit"}}, "usage": {}, "seconds": 0.0, "trace": {}, "ensemble": {"samples": 1, "rule": "mean", "score": -1.0, "scores": [-1.0], "kept": [1], "usable": 1, "dropped": [], "chosen": 1, "std": 0.0, "min": -1.0, "max": -1.0}, "degraded": []}'


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

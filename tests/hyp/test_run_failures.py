"""A hypothesis run: an opening whose LM fails is unscored; a bug in the workflow propagates."""

from __future__ import annotations

import pytest
from dspy.utils.exceptions import LMServerError

from tribunal.eval.hyp.instance import load_instance
from tribunal.eval.hyp.run_job import execute_run
from tribunal.programs.hyp_workflow import HypothesisWorkflow


def _failing(monkeypatch, scripted, err):
    def forward(self, **kwargs):
        raise err
    monkeypatch.setattr(HypothesisWorkflow, "forward", forward)
    lm, _ = scripted.scripted_lm(lambda system, user: {})
    return execute_run(load_instance(), depth=1, rerun=0, lm=lm, max_per_opening=1)


def test_a_bug_in_the_workflow_propagates(monkeypatch, scripted):
    with pytest.raises(TypeError, match="a bug"):
        _failing(monkeypatch, scripted, TypeError("a bug"))


def test_an_lm_failure_leaves_its_openings_unscored(monkeypatch, scripted):
    record = _failing(monkeypatch, scripted, LMServerError("server down"))
    assert len(record.errors) == record.openings and "server down" in record.errors[0]

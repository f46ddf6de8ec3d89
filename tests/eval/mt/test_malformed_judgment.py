"""A program that returns no judgment leaves its item unscored with the reason, on every runner path."""

from __future__ import annotations

import asyncio

import dspy

from tribunal.core.mt_item import JudgeItem
from tribunal.eval.mt.async_judging import ajudge_item
from tribunal.eval.mt.groups import judge_group
from tribunal.eval.mt.judging import judge_item

ITEM = JudgeItem("a", "src", "tgt")


class Returns(dspy.Module):
    """A program returning ``prediction`` (threads: ``forward``; async: ``aforward``)."""

    def __init__(self, prediction: object):
        super().__init__()
        self.prediction = prediction

    def forward(self, **_: object) -> object:
        return self.prediction

    async def aforward(self, **_: object) -> object:
        return self.prediction


def _assert_unscored_malformed(result, problem: str) -> None:
    assert result.status == "unscored" and result.score is None
    assert result.reason.startswith("malformed judgment: ") and problem in result.reason
    assert not result.retryable and not result.transient  # the program's bug: a rerun would return it again


def test_a_missing_score_unscores_the_item_with_the_reason():
    _assert_unscored_malformed(judge_item(Returns(dspy.Prediction(errors=[], transcript=[])), ITEM, {}),
                               "score: Field required")


def test_an_error_of_the_wrong_shape_unscores_the_item_on_the_async_path_too():
    bad = dspy.Prediction(score=-1.0, errors=[{"span": "x"}], transcript=[])
    _assert_unscored_malformed(asyncio.run(ajudge_item(Returns(bad), ITEM, {})), "errors.0.severity")


def test_a_joint_judge_answering_for_too_few_candidates_unscores_its_group():
    one = dspy.Prediction(errors=[], score=0.0, transcript=[{"stage": "joint", "role": "joint"}])
    items = [ITEM, JudgeItem("b", "src", "other")]
    results = judge_group(Returns(dspy.Prediction(judgments=[one])), items, {})
    assert [r.key for r in results] == ["a", "b"]
    for result in results:
        _assert_unscored_malformed(result, "1 judgments for 2 candidates")


def test_a_well_formed_judgment_is_scored_with_its_typed_parts():
    good = dspy.Prediction(score=-1.0, errors=[{"span": "x", "subcategory": "grammar", "severity": "minor"}],
                           transcript=[{"stage": "gemba", "role": "gemba", "errors": []}], debates={})
    result = judge_item(Returns(good), ITEM, {})
    assert result.status == "scored" and result.score == -1.0 and result.errors[0].severity == "minor"
    assert result.transcript[0].model_dump() == {"stage": "gemba", "role": "gemba", "errors": []}

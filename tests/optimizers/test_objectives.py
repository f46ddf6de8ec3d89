"""Corpus-level objectives: the registry, unscored items, and parity with ``mt meta-eval`` / ``mt agreement``."""

from __future__ import annotations

import dspy
import numpy as np
import pytest

from tests.optimizers.rank_task import mode_a, mode_b, rank_examples
from tribunal.errors import UserError
from tribunal.optimizers.equiv_metric import EquivalenceMetric
from tribunal.optimizers.mt_metric import MQMMetric
from tribunal.optimizers.objectives import OBJECTIVES, ObjectiveSpec, parse_objective, register_objective

DEV = rank_examples(5)
RANK = {id(e): k for e in DEV for k in [int(e.translation.rsplit("-", 1)[1])]}
A = [dspy.Prediction(score=mode_a(e.gold_score, RANK[id(e)])) for e in DEV]
B = [dspy.Prediction(score=mode_b(e.gold_score)) for e in DEV]


def value(name, predictions, golds=DEV, kind="mt"):
    metric = MQMMetric() if kind == "mt" else EquivalenceMetric()
    return parse_objective(name, kind, metric).value(predictions, golds)


def test_item_and_corpus_statistics_prefer_different_candidates():
    assert value("item", A) > value("item", B)
    for name in ("seg-acc-eq", "kendall", "pearson"):
        assert value(name, B) > value(name, A), name
    assert value("seg-acc-eq", B) == 1.0 and value("seg-acc-eq", A) == pytest.approx(4 / 6)


@pytest.mark.parametrize("name", ["item", "seg-acc-eq", "kendall", "pearson", "seg-acc-eq=0.7,item=0.3"])
def test_unscored_items_lower_the_objective(name):
    for predictions in (A, B):
        holed = [None if i % 4 == 0 else p for i, p in enumerate(predictions)]  # the best of each segment
        unusable = [dspy.Prediction(score="n/a") if i % 4 == 0 else p for i, p in enumerate(predictions)]
        assert value(name, holed) < value(name, predictions)
        assert value(name, unusable) == pytest.approx(value(name, holed))
    assert value(name, [None] * len(DEV)) <= value(name, A)


def test_a_judge_cannot_win_by_not_answering_the_hard_items():
    # B answers every item; a copy of B silent on the pairs it would get wrong is still not better.
    partial = [None if e.seg_id % 2 else p for e, p in zip(DEV, B)]
    assert value("seg-acc-eq", partial) < value("seg-acc-eq", B)
    assert value("pearson", partial) < value("pearson", B) and value("kendall", partial) < value("kendall", B)


def test_equivalence_objectives_count_unscored_verdicts_as_wrong():
    golds = [dspy.Example(verdict=v) for v in ["same", "same", "different", "different"]]
    right = [dspy.Prediction(verdict=g.verdict) for g in golds]
    assert value("balanced-accuracy", right, golds, "equiv") == 1.0
    assert value("f1-different", right, golds, "equiv") == 1.0
    silent = right[:2] + [None, dspy.Prediction(verdict="maybe")]
    assert value("balanced-accuracy", silent, golds, "equiv") == 0.5
    assert value("f1-different", silent, golds, "equiv") == 0.0


def test_a_mix_weights_the_values_on_a_common_scale():
    expected = (0.7 * value("seg-acc-eq", A) + 0.3 * (value("pearson", A) + 1) / 2) / 1.0
    assert value("seg-acc-eq=0.7,pearson=0.3", A) == pytest.approx(expected)


@pytest.mark.parametrize("text, message", [
    ("nope", "unknown objective 'nope'"), ("balanced-accuracy", "not an objective for mt judges"),
    ("seg-acc-eq=x", "is not a number"), ("seg-acc-eq=0", "must be positive"),
    ("seg-acc-eq,item", "a mix needs a weight"), ("item=1,item=2", "item given twice")])
def test_bad_objectives_are_one_line_errors(text, message):
    with pytest.raises(UserError, match=message):
        parse_objective(text, "mt", MQMMetric())


def test_a_registered_objective_is_one_more_entry():
    register_objective(ObjectiveSpec("test-constant", ("mt",), lambda predictions, golds: 0.25))
    try:
        assert value("test-constant", A) == 0.25
        assert value("test-constant=1,item=1", A) == pytest.approx((0.25 + value("item", A)) / 2)
    finally:
        OBJECTIVES.pop("test-constant")


def test_the_objective_equals_meta_eval_and_agreement(tmp_path):
    """The same judge scores through ``mt meta-eval`` (a tiny MTME folder) and through the objective."""
    from tests.conftest import write
    from tests.support.small_mtme import GOLD, write_small_mtme
    from tribunal.eval.meta.agreement_stats import kendall_tau_b
    from tribunal.eval.meta.meta_eval_job import run_meta_eval
    from tribunal.eval.tracking.mlflow_run import TrackingSettings

    root = write_small_mtme(tmp_path / "mtme")
    judge = {"A": [0, -2, 0, -1], "B": [-1, -1, -3, -1], "C": [-4, -5, -5, 0], "refA": [0, 0, 0, 0]}
    scores = tmp_path / "scores"
    write(scores / "en-de" / "judge-refA.seg.score", "".join(f"{s}\t{v}\n" for s, vs in judge.items() for v in vs))
    write(scores / "en-de" / "judge-refA.sys.score", "".join(f"{s}\t{np.mean(vs)}\n" for s, vs in judge.items()))
    off = TrackingSettings(enabled=False)
    wmt24 = run_meta_eval(root, None, None, off, scores=(scores,), protocol="wmt24").table
    wmt23 = run_meta_eval(root, None, None, off, scores=(scores,), protocol="wmt23").table
    row24 = wmt24[wmt24.metric.str.startswith("judge")].iloc[0]
    row23 = wmt23[wmt23.metric.str.startswith("judge")].iloc[0]

    golds = [dspy.Example(gold_score=float(v), seg_id=i, system=s) for s, vs in GOLD.items() for i, v in enumerate(vs)]
    predictions = [dspy.Prediction(score=float(judge[g.system][g.seg_id])) for g in golds]
    assert value("seg-acc-eq", predictions, golds) == pytest.approx(float(row24["en-de_seg_acc_eq"]))
    assert value("pearson", predictions, golds) == pytest.approx(float(row23["en-de_seg_pearson"]))
    human = np.array([g.gold_score for g in golds])
    scored = np.array([p.score for p in predictions])
    assert value("kendall", predictions, golds) == pytest.approx(float(kendall_tau_b(human, scored, np.ones(12))[0]))


def test_the_bootstrap_interval_is_seeded_and_brackets_the_value():
    from tribunal.optimizers.objective_report import score_both

    objective = parse_objective("seg-acc-eq", "mt", MQMMetric())
    first = score_both(objective, A, DEV, seed=3, draws=200)
    again = score_both(objective, A, DEV, seed=3, draws=200)
    assert first == again
    assert first.objective.low <= first.objective.value <= first.objective.high
    assert first.item.low <= first.item.value <= first.item.high and first.item.value == pytest.approx(0.952)


def test_span_mpp_is_micro_mpp_and_an_unscored_item_loses_its_recall():
    import dspy

    from tribunal.optimizers.objectives import OBJECTIVES

    text = "The cat sat on the mat"
    gold = [dspy.Example(translation=text, gold_errors=[{"start": 4, "end": 7, "severity": "major"}]),  # "cat"
            dspy.Example(translation=text, gold_errors=[{"start": 19, "end": 22, "severity": "minor"}])]  # "mat"
    # item 1 marks "The cat" (7 chars, 3 shared: precision credit 3/7, recall credit 3/3); item 2 marks "mat"
    preds = [dspy.Prediction(errors=[{"span": "The cat", "severity": "major"}], score=-5.0),
             dspy.Prediction(errors=[{"span": "mat", "severity": "minor"}], score=-1.0)]
    spec = OBJECTIVES["span-mpp"]
    p, r = (3 / 7 + 1) / 2, (1 + 1) / 2
    assert spec.statistic(preds, gold) == pytest.approx(2 * p * r / (p + r), abs=1e-12)
    # unscored second item: its gold span counts with no credit
    p, r = 3 / 7, 1 / 2
    assert spec.statistic([preds[0], None], gold) == pytest.approx(2 * p * r / (p + r), abs=1e-12)

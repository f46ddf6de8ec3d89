"""Each optimizer that selects among candidates follows ``--objective`` (scripted LM, tiny budgets).

On the rank family (:mod:`tests.optimizers.rank_task`) the untuned judge is A (close, ranked with
noise) and tuning can produce B (offset, perfectly ranked): under ``item`` the chosen program must
be A-like on dev, under ``seg-acc-eq`` B-like.
"""

from __future__ import annotations

import dspy
import pytest

from tests.optimizers.rank_task import RankEngine, RankJudge, rank_examples, rank_lm
from tests.optimizers.toy_task import ToyEngine, toy_lm
from tribunal.optimizers.dev_eval import evaluate_program
from tribunal.optimizers.mt_metric import MQMMetric
from tribunal.optimizers.objective_selection import select_by_objective
from tribunal.optimizers.objectives import parse_objective
from tribunal.optimizers.registry import TuningContext, optimizer_spec, plan, run_plan

TRAIN, DEV = rank_examples(8), rank_examples(5, offset=100)
# optimizer -> (budget, B unlocked by demos?, by the proposed phrase?, uses a prompt LM?)
CASES = {
    "random-search": (2, True, False, False),
    "mipro": (4, False, True, True),
    "simba": (2, True, True, True),
    "gepa": (60, False, True, True),
}


def tune(name: str, objective_text: str):
    budget, by_demos, by_phrase, prompt = CASES[name]
    task = rank_lm(RankEngine(unlock_by_demos=by_demos, unlock_by_phrase=by_phrase))
    metric = MQMMetric()
    objective = parse_objective(objective_text, "mt", metric)
    ctx = TuningContext(metric=metric, task_lm=task, budget=budget, seed=0, train=TRAIN, dev=DEV, threads=1, demos=2,
                        prompt_lm=toy_lm(ToyEngine(), "toy/prompt") if prompt else None, objective=objective)
    configured = plan(optimizer_spec(name), ctx)
    with dspy.context(lm=task):
        compiled = run_plan(configured, RankJudge(), TRAIN, seed=0)
        selection = select_by_objective(compiled, objective, lambda p: evaluate_program(p, DEV, metric, 1), DEV)
        dev = evaluate_program(selection.program, DEV, metric, 1)
    acc_eq = parse_objective("seg-acc-eq", "mt", metric).value(dev.predictions, DEV)
    return dev, acc_eq, selection, configured


@pytest.mark.parametrize("name", list(CASES))
def test_item_keeps_the_close_judge_and_seg_acc_eq_the_well_ranked_one(name):
    dev, acc_eq, selection, _ = tune(name, "item")
    assert dev.score == pytest.approx(0.952) and acc_eq == pytest.approx(4 / 6)  # A: the optimizer's own choice
    assert selection.finalists == []

    dev, acc_eq, selection, _ = tune(name, "seg-acc-eq")
    assert acc_eq == 1.0 and dev.score == pytest.approx(0.68)  # B, though its item metric is lower
    assert selection.chosen.source != "compiled" and selection.chosen.objective == 1.0
    assert any(f.source == "compiled" and f.objective < 1.0 for f in selection.finalists)


def test_gepa_keeps_proposals_by_the_objective():
    _, acc_eq, _, configured = tune("gepa", "seg-acc-eq")
    criterion = configured.optimizer.gepa_kwargs["acceptance_criterion"]
    assert configured.knobs["reflection_minibatch_size"] == 6 and configured.knobs["acceptance"] == "seg-acc-eq"
    # a B proposal loses on the item sum but wins on the objective, and was kept
    assert any(after > before and accept for before, after, accept in criterion.decisions)


def test_ranking_feedback_names_the_ordering_error():
    from tribunal.optimizers.ranking_feedback import RankingFeedback

    feedback = RankingFeedback(MQMMetric())
    better, worse = DEV[0], DEV[2]  # human 0 and -4 (segment 100: shifted by 1)
    feedback(better, dspy.Prediction(score=-5.0))
    result = feedback(worse, dspy.Prediction(score=-1.0))
    assert "Ranked above a translation the raters scored 4 points better" in result.feedback
    assert result.score == MQMMetric().outcome(worse, dspy.Prediction(score=-1.0)).score


def test_unscored_dev_items_lower_the_chosen_objective():
    metric = MQMMetric()
    objective = parse_objective("seg-acc-eq", "mt", metric)
    silent = frozenset(e.translation for e in DEV[::4])
    with dspy.context(lm=rank_lm(RankEngine(unlock_by_demos=False, unlock_by_phrase=False))):
        full = evaluate_program(RankJudge(), DEV, metric, 1)
    with dspy.context(lm=rank_lm(RankEngine(unlock_by_demos=False, unlock_by_phrase=False, silent=silent))):
        holed = evaluate_program(RankJudge(), DEV, metric, 1)
    assert holed.unscored == len(silent)
    assert objective.value(holed.predictions, DEV) < objective.value(full.predictions, DEV)


def test_gepa_minibatches_hold_whole_segments():
    from tribunal.optimizers.gepa_objective import SegmentBatchSampler

    sampler = SegmentBatchSampler(TRAIN, 6, seed=0)
    batches = [sampler.next_minibatch_ids(None, None) for _ in range(6)]
    assert all(len(b) == 6 == len(set(b)) for b in batches)
    for batch in batches:  # a whole segment of four, then two of the next
        segments = [TRAIN[i].seg_id for i in batch]
        assert len(set(segments[:4])) == 1 and len(set(segments[4:])) == 1
    assert len({TRAIN[i].seg_id for b in batches[:4] for i in b[:4]}) == 4  # segments cycle, not repeat


def test_simba_and_gepa_get_feedback_naming_ranking_errors_under_a_corpus_objective():
    from tribunal.optimizers.ranking_feedback import RankingFeedback

    for name in ("simba", "gepa"):
        *_, configured = tune(name, "seg-acc-eq")
        metric = configured.optimizer.metric if name == "simba" else configured.optimizer.metric_fn
        assert isinstance(metric, RankingFeedback), name
        *_, configured = tune(name, "item")
        assert not isinstance(configured.optimizer.metric if name == "simba" else configured.optimizer.metric_fn,
                              RankingFeedback)

"""Corpus-level statistics of a judge's dev predictions, through the functions the reports use.

Each is a function ``(predictions, golds) -> float`` (higher is better), registered in
:mod:`tribunal.optimizers.objectives`. No statistic is reimplemented here:

- ``seg-acc-eq``: segment-level pairwise accuracy with tie calibration (Deutsch et al., 2023), the
  ``seg_acc_t`` / ``seg_acc_eq`` task of ``tribunal mt meta-eval``: gold and judge scores as an
  (items x translations) matrix, :class:`~tribunal.eval.meta.lp_tasks.GoldMatrices` and
  :func:`~tribunal.eval.meta.correlation.tie_calibrated_accuracy`. An *item* (a row) is a source
  segment (``seg_id``), its translations the columns (one per system and rater); examples without
  a ``seg_id`` (MLflow traces) form one row together.
- ``pearson``: segment-level Pearson over all scored items (``mt meta-eval``'s ``seg_pearson``,
  :func:`tribunal.eval.meta.correlation.pearson`);
- ``kendall``: Kendall's tau-b (``mt agreement``'s, :func:`tribunal.eval.meta.agreement_stats.kendall_tau_b`);
- ``balanced-accuracy`` and ``f1-different`` for equivalence verdicts (scikit-learn's
  ``balanced_accuracy_score`` and ``f1_score`` with "different" as the positive class).

Unscored items (no prediction, no usable score or verdict) take the worst case, so a judge cannot
win by not answering the hard items:

- ``seg-acc-eq``: every pair with an unscored translation counts as wrong, at every tie threshold
  (it stays in the denominator and never in the numerator; it does not move the threshold);
- ``pearson`` / ``kendall``: the statistic over the scored items, mixed with -1 (perfect
  disagreement) by the unscored share: ``scored/n * r + unscored/n * (-1)``;
- equivalence: an unscored verdict is the wrong one (the opposite of the label).
An undefined statistic (fewer than two items, a constant judge: NaN) is the worst value too.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Sequence

import numpy as np
import warnings

from tribunal.optimizers.equiv_metric import expected_verdict, predicted_verdict
from tribunal.optimizers.mt_metric import example_span_f, gold_spans, predicted_mqm_score, read_judgment, \
    translation_spans
from tribunal.eval.meta.agreement_stats import kendall_tau_b
from tribunal.eval.meta.correlation import pearson as wmt_pearson, tie_calibrated_accuracy
from tribunal.eval.meta.lp_tasks import GoldMatrices
from tribunal.eval.meta.spans.scoring import aggregate, precision_recall_f


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if hasattr(obj, "get") else getattr(obj, name, None)


def mt_scores(predictions: Sequence[Any], golds: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    """(human, judge) MQM scores per item; the judge's is NaN where the item is unscored."""
    human = np.array([float(_get(g, "gold_score")) for g in golds], float)
    judge = np.array([_judge_score(p) for p in predictions], float)
    return human, judge


def _judge_score(pred: Any) -> float:
    if pred is None:
        return float("nan")
    score, _ = predicted_mqm_score(pred)
    return float("nan") if score is None else score


def segment_matrices(golds: Sequence[Any], human: np.ndarray, judge: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(items x translations) gold and judge matrices; rows by ``seg_id`` (a bootstrap copy by ``_draw`` too)."""
    rows: dict[Any, list[int]] = {}
    for index, gold in enumerate(golds):
        rows.setdefault((_get(gold, "_draw"), _get(gold, "seg_id")), []).append(index)
    width = max((len(r) for r in rows.values()), default=0)
    gold_seg = np.full((len(rows), width), np.nan)
    judge_seg = np.full((len(rows), width), np.nan)
    for row, members in enumerate(rows.values()):
        gold_seg[row, :len(members)] = human[members]
        judge_seg[row, :len(members)] = judge[members]
    return gold_seg, judge_seg


def seg_acc_eq(predictions: Sequence[Any], golds: Sequence[Any]) -> float:
    """``mt meta-eval``'s segment-level acc_eq; pairs with an unscored translation are wrong (NaN -> 0)."""
    human, judge = mt_scores(predictions, golds)
    gold_seg, judge_seg = segment_matrices(golds, human, judge)
    gold = GoldMatrices.from_arrays(list(range(gold_seg.shape[1])), np.full(gold_seg.shape[1], np.nan), gold_seg)
    missing = np.isnan(judge_seg)
    table = gold.pairs.table(np.where(missing, 0.0, judge_seg))
    if missing.any():
        cells = missing.ravel()
        lost = cells[gold.pairs.cells[0]] | cells[gold.pairs.cells[1]]
        # A discordant, untied pair is wrong at every epsilon and never moves the chosen epsilon.
        table = replace(table, gold_diff=np.where(lost, 1.0, table.gold_diff),
                        metric_diff=np.where(lost, -1.0, table.metric_diff))
    accuracy, _ = tie_calibrated_accuracy(table)
    return 0.0 if math.isnan(accuracy) else float(accuracy)


def _with_unscored(value: float, scored: int, n: int) -> float:
    """A correlation over the scored items mixed with -1 by the unscored share (NaN counts -1)."""
    if n == 0:
        return -1.0
    value = -1.0 if math.isnan(value) else value
    return (scored * value - (n - scored)) / n


def pearson(predictions: Sequence[Any], golds: Sequence[Any]) -> float:
    """``mt meta-eval``'s segment-level Pearson over the scored items, unscored ones as -1."""
    human, judge = mt_scores(predictions, golds)
    keep = ~np.isnan(judge)
    return _with_unscored(wmt_pearson(human[keep], judge[keep]), int(keep.sum()), len(human))


def kendall(predictions: Sequence[Any], golds: Sequence[Any]) -> float:
    """``mt agreement``'s Kendall tau-b over the scored items, unscored ones as -1."""
    human, judge = mt_scores(predictions, golds)
    keep = ~np.isnan(judge)
    if keep.sum() < 2:
        return _with_unscored(float("nan"), int(keep.sum()), len(human))
    tau = float(kendall_tau_b(human[keep], judge[keep], np.ones(int(keep.sum())))[0])
    return _with_unscored(tau, int(keep.sum()), len(human))


def verdicts(predictions: Sequence[Any], golds: Sequence[Any]) -> tuple[list[str], list[str]]:
    """(labels, verdicts); an unscored verdict is the wrong one."""
    flip = {"same": "different", "different": "same"}
    labels = [expected_verdict(g) for g in golds]
    said = [(predicted_verdict(p) if p is not None else None) or flip[label] for p, label in zip(predictions, labels)]
    return labels, said


def balanced_accuracy(predictions: Sequence[Any], golds: Sequence[Any]) -> float:
    """Mean of the recall of "same" and of "different" (scikit-learn's ``balanced_accuracy_score``)."""
    from sklearn.metrics import balanced_accuracy_score  # heavy: sklearn, pandas

    labels, said = verdicts(predictions, golds)
    if not labels:
        return 0.0
    with warnings.catch_warnings():  # one class only: sklearn warns and averages what it has
        warnings.simplefilter("ignore")
        return float(balanced_accuracy_score(labels, said))


def f1_different(predictions: Sequence[Any], golds: Sequence[Any]) -> float:
    """F1 of the "different" verdicts (0 when there is none to find or none was said)."""
    from sklearn.metrics import f1_score  # heavy: sklearn, pandas

    labels, said = verdicts(predictions, golds)
    return float(f1_score(labels, said, pos_label="different", zero_division=0.0)) if labels else 0.0


def span_mpp(predictions: Sequence[Any], golds: Sequence[Any]) -> float:
    """Micro MPP F over the dev items' target-side spans (``mt evaluate``'s and ``mt span-eval``'s default
    measure, :mod:`tribunal.eval.meta.spans`; Perrella et al., 2026). An unscored item predicted nothing:
    its human spans count, with no credit (its recall is 0), as does a prediction that is no judgment; a predicted span not found in the
    translation counts as predicted, matching nothing."""
    counts, missed = [], 0
    for pred, gold in zip(predictions, golds):
        judgment = None if pred is None else read_judgment(pred)[0]
        located, missing = ([], []) if judgment is None else translation_spans(judgment.errors,
                                                                               str(_get(gold, "translation")))
        _, segment = example_span_f(located, missing, gold_spans(gold))
        counts.append(segment)
        missed += len(missing)
    score = aggregate(counts)
    return precision_recall_f(score.tp_p, score.n_p + missed, score.tp_r, score.n_g)[2]

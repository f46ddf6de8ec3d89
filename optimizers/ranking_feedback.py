"""Per-example feedback that names ranking errors, for inner loops that need one score per example.

GEPA reflects on one example at a time and SIMBA buckets examples by their score, so both keep
the item metric as their per-example score (SIMBA shows a metric's feedback to the LM writing its
rules, GEPA to its reflection LM). Under a ranking objective the feedback text should
still say what the objective punishes: this metric remembers the latest (judge, human) scores it
saw per item and adds, to the item metric's own feedback, the worst ordering error against the
other remembered items, e.g. "Ranked above a translation the raters scored 5 points better (...)".
What is remembered is the most recent prediction of each item (the minibatch being reflected on,
and earlier ones): a best-effort view of the candidate's ranking, never used as a score.
"""

from __future__ import annotations

import threading
from typing import Any

from tribunal.optimizers.mt_metric import predicted_mqm_score

MEMORY = 256  # items remembered (the most recent)
MIN_GAP = 1.0  # human score difference (MQM points) below which an order is not called an error


def _key(gold: Any) -> str:
    return str(gold.get("translation") or "")[:200] + "\x00" + str(gold.get("source") or "")[:200]


class RankingFeedback:
    """Wraps a JudgeMetric's ``with_feedback``: same score, feedback naming ordering errors."""

    def __init__(self, metric: Any):
        self.metric = metric
        self._seen: dict[str, tuple[float, float, str]] = {}
        self._lock = threading.Lock()

    def remember(self, gold: Any, pred: Any) -> tuple[float, float] | None:
        score, _ = predicted_mqm_score(pred) if pred is not None else (None, None)
        if score is None:
            return None
        human = float(gold.get("gold_score"))
        with self._lock:
            self._seen.pop(_key(gold), None)
            self._seen[_key(gold)] = (score, human, str(gold.get("translation") or "")[:60])
            while len(self._seen) > MEMORY:
                self._seen.pop(next(iter(self._seen)))
        return score, human

    def ranking_note(self, gold: Any, judge: float, human: float) -> str:
        """The largest ordering error of this item against the remembered others ('' if none)."""
        me = _key(gold)
        with self._lock:
            others = [(k, v) for k, v in self._seen.items() if k != me]
        worst = None
        for _, (other_judge, other_human, text) in others:
            gap = other_human - human
            if abs(gap) < MIN_GAP:
                continue
            wrong = (gap > 0 and judge > other_judge) or (gap < 0 and judge < other_judge)
            if wrong and (worst is None or abs(gap) > abs(worst[0])):
                worst = (gap, other_judge, other_human, text)
        if worst is None:
            return ""
        gap, other_judge, other_human, text = worst
        side = "above" if gap > 0 else "below"
        better = "better" if gap > 0 else "worse"
        return (f"Ranked {side} a translation the raters scored {abs(gap):g} points {better} ('{text}': your "
                f"score {other_judge:g}, human {other_human:g}; here your score {judge:g}, human {human:g}). "
                "The ranking of translations matters more than each score's closeness.")

    def __call__(self, gold: Any, pred: Any, trace: Any = None, pred_name: str | None = None,
                 pred_trace: Any = None):
        import dspy  # heavy: dspy

        scored = self.metric.with_feedback(gold, pred, trace, pred_name, pred_trace)
        seen = self.remember(gold, pred)
        if seen is None:
            return scored
        note = self.ranking_note(gold, *seen)
        return dspy.Prediction(score=scored.score, feedback=f"{scored.feedback} {note}".strip())

"""How well an MT judge's MQM annotation agrees with the human one, as one number in [0, 1].

Three components, averaged with weights over those that apply to the item:
- ``score``: agreement of the predicted MQM score with the human score,
  ``1 - min(|predicted - human| / scale, 1)`` (scale 25 = one non-translation error);
- ``spans``: span F against the human error spans by the measure the field reports, micro MPP with an
  optimal one-to-one matching (:func:`tribunal.eval.meta.spans.segment_counts`; Perrella et al. 2026);
  a predicted span that is not a substring of the translation counts as a predicted span matching
  nothing. Nothing predicted and nothing annotated is a perfect 1.0;
- ``severity``: of the predicted errors that overlap a human error, the share with the same severity
  (not applicable when nothing overlaps).
An example whose ``gold_errors`` is None (a human label with a score but no marked spans) is judged
on its score alone. A prediction is read as the runner reads it (:meth:`MTJudgment.of`): one that is no
judgment (no numeric score, errors of the wrong shape...) is unscored with that reason, never zero. A prediction whose ``scale`` is ``"esa"``
(GEMBA-ESA's 0-100 score) is compared on MQM's scale through
:func:`tribunal.programs.mqm.scoring.mqm_from_esa` (100 -> 0, 0 -> -25, linear).
"""

from __future__ import annotations

import math
from typing import Any

from tribunal.eval.meta.spans import SegmentCounts, precision_recall_f, segment_counts
from tribunal.core.mt_judgment import MTJudgment, MalformedJudgment
from tribunal.core.spans import Span, side_of, span
from tribunal.optimizers.metric_base import JudgeMetric, Outcome, mean_of, unscored
from tribunal.programs.mqm.scoring import mqm_from_esa
from tribunal.eval.mt.grounding import locate, spans_of, ungrounded

DEFAULT_WEIGHTS = {"score": 1.0, "spans": 1.0, "severity": 1.0}


# A prediction's ``scale`` -> its score on MQM's scale (no ``scale``: an MQM score already).
TO_MQM_SCALE = {"esa": mqm_from_esa}


def _get(obj: Any, name: str, default: Any = None) -> Any:
    return obj.get(name, default) if isinstance(obj, dict) else getattr(obj, name, default)


def translation_spans(errors: Any, translation: str) -> tuple[list[Span], list[str]]:
    """Predicted errors as spans of the translation, located by :func:`tribunal.eval.mt.grounding.locate`
    (exact, normalised or fuzzy); also the quoted spans that could not be found in it. Source errors
    and errors quoting nothing are neither."""
    located = [e for e in locate(errors, translation) if not e.get("is_source_error") and e.get("span")]
    return spans_of(located), ungrounded(located)


def gold_spans(gold: Any) -> list[Span]:
    """Human error spans of an example (``gold_errors``: dicts with start, end, severity, ...)."""
    return [span(e["start"], e["end"], e.get("severity") or "", side_of(e.get("is_source_error")))
            for e in gold.get("gold_errors") or () if e.get("start") is not None and e.get("end") is not None]


def example_span_f(predicted: list[Span], missing: list[str], gold: list[Span]) -> tuple[float, SegmentCounts]:
    """Micro-MPP F of one example (an ungrounded predicted span counts as a predicted span matching nothing)."""
    counts = segment_counts(predicted, gold)
    return precision_recall_f(counts.tp_p, counts.n_p + len(missing), counts.tp_r, counts.n_g)[2], counts


def severity_accuracy(predicted: list[Span], gold: list[Span]) -> float | None:
    pairs = []
    for p in predicted:
        match = next((g for g in gold if not g.is_source_error and p.start < g.end and g.start < p.end), None)
        if match is not None:
            pairs.append(p.severity == match.severity)
    return sum(pairs) / len(pairs) if pairs else None


def read_judgment(pred: object) -> tuple[MTJudgment | None, str | None]:
    """A prediction's judgment (:meth:`MTJudgment.of`, as the runner reads it), or ``(None, why it has none)``:
    a malformed one is unscored with the runner's reason, never scored zero."""
    try:
        return MTJudgment.of(pred), None
    except MalformedJudgment as err:
        return None, f"malformed judgment: {err}"


def predicted_mqm_score(pred: object) -> tuple[float | None, str | None]:
    """A prediction's score on MQM's scale, or ``(None, why it has none)``."""
    judgment, problem = read_judgment(pred)
    if judgment is None:
        return None, problem
    return judgment_mqm_score(judgment)


def judgment_mqm_score(judgment: MTJudgment) -> tuple[float | None, str | None]:
    """A judgment's score on MQM's scale (its ``scale`` converted), or ``(None, why it has none)``."""
    if math.isnan(judgment.score):
        return None, "MQM score is NaN"
    if judgment.scale is None:
        return judgment.score, None
    if judgment.scale not in TO_MQM_SCALE:
        return None, f"unknown score scale {judgment.scale!r}"
    return TO_MQM_SCALE[judgment.scale](judgment.score), None


class MQMMetric(JudgeMetric):
    """Agreement with human MQM labels: score, span F1 and severity accuracy."""

    name = "mqm-agreement"
    success_threshold = 0.8

    def __init__(self, weights: dict[str, float] | None = None, scale: float = 25.0):
        super().__init__()
        self.weights = dict(weights or DEFAULT_WEIGHTS)
        self.scale = scale

    def judge(self, gold: Any, pred: Any) -> Outcome:
        judgment, problem = read_judgment(pred)
        predicted_score, problem = judgment_mqm_score(judgment) if judgment is not None else (None, problem)
        if judgment is None or predicted_score is None:
            return unscored(problem)
        human = float(gold.get("gold_score"))
        translation = gold.get("translation") or ""
        located, missing = translation_spans(judgment.errors, translation)
        reference = gold_spans(gold)
        f1, counts = example_span_f(located, missing, reference)
        components = {
            "score": 1.0 - min(abs(predicted_score - human) / self.scale, 1.0),
            "spans": f1,
            "severity": severity_accuracy(located, reference),
        }
        if gold.get("gold_errors") is None:  # a label that gives the score only (an MLflow trace a person scored)
            components["spans"] = components["severity"] = None
        score, present = mean_of(components, self.weights)
        return Outcome(score, self._feedback(predicted_score, human, located, missing, reference, translation),
                       components=present)

    @staticmethod
    def _feedback(predicted: float, human: float, located: list[Span], missing: list[str],
                  reference: list[Span], translation: str) -> str:
        lines = [f"Predicted MQM score {predicted:g}; the human annotator's score is {human:g}."]
        def overlaps(a: Span, b: Span) -> bool:
            return a.start < b.end and b.start < a.end

        missed = [g for g in reference if not g.is_source_error and not any(overlaps(p, g) for p in located)]
        spurious = [p for p in located if not any(overlaps(p, g) for g in reference)]
        if missed:
            lines.append("Missed human errors: " + "; ".join(
                f"'{translation[g.start:g.end]}' ({g.severity})" for g in missed[:5]))
        if spurious:
            lines.append("Errors the annotator did not mark: "
                         + "; ".join(f"'{p.text}' ({p.severity})" for p in spurious[:5]))
        if missing:
            lines.append("Spans that are not exact substrings of the translation: "
                         + "; ".join(f"'{m}'" for m in missing[:5]))
        wrong = [(p, g) for p in located for g in reference if overlaps(p, g) and p.severity != g.severity]
        if wrong:
            lines.append("Severity disagreements: " + "; ".join(
                f"'{p.text}' is {g.severity}, not {p.severity}" for p, g in wrong[:5]))
        if len(lines) == 1:
            lines.append("The annotation matches the human one.")
        return " ".join(lines)

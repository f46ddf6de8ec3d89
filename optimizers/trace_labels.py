"""The human label of one MLflow trace: which assessment counts, and why a trace has none.

A trace is usable as a training item when its root span's inputs hold the item and a person has
labelled it. The rules (the README's "Training data from MLflow" says the same):

- **Who.** Only assessments whose source is ``HUMAN`` count, and only valid ones (an assessment a
  person overrode in the UI is marked invalid and is ignored). A judge's own feedback
  (``LLM_JUDGE``) is never a label.
- **What.** MT items: the MQM score is the assessment named ``human_mqm`` (what ``mt evaluate``
  writes as an expectation; a person may add or change it as an expectation or as feedback), or a
  person's correction of the judge's own score (feedback ``<metric>_mqm`` overridden in the UI).
  Error spans, when a person marked them, are the expectation ``human_errors``: a list of
  ``{"category", "severity", "start", "end", "is_source_error"}`` (character offsets into the
  translation, or the source for a source error) or ``{"category", "severity", "span"}`` with the
  span's exact text. Equivalence pairs: the verdict ``same`` / ``different`` named
  ``expected_verdict`` (what ``equiv audit`` writes), or a person's correction of ``<rule>_verdict``.
- **Which.** With several human assessments of one name, the latest (by last update) wins. If the
  latest is unusable (not a number, not a verdict), the trace is skipped with that reason: an older
  label is never taken instead, and no label is ever guessed.

Pure functions over MLflow's trace and assessment entities; reading traces is
:mod:`tribunal.optimizers.mlflow_data`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from tribunal.signatures.mqm.item_fields import MT_ITEM_FIELDS
from tribunal.optimizers.example_inputs import human_mqm_score

MQM_LABEL = "human_mqm"
ERRORS_LABEL = "human_errors"
VERDICT_LABEL = "expected_verdict"
SEVERITIES = ("minor", "major", "critical", "neutral")
VERDICTS = ("same", "different")
MT_FIELDS = MT_ITEM_FIELDS

# Why a trace is not a training item (the counted reasons).
NO_LABEL = "no human label"
NOT_A_SCORE = "human MQM label is not a number <= 0"
BAD_ERRORS = "human_errors is not a list of error spans"
NOT_A_VERDICT = "human verdict is not same / different"
NO_ITEM = "no source / translation in the trace inputs"
NO_LANGUAGES = "no source_lang / target_lang in the trace inputs"
NOT_AN_ITEM = "not an MT item or a hypothesis pair"


class LabelProblem(ValueError):
    """A trace's label cannot be used; ``reason`` is one of the counted reasons above."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


@dataclass
class TraceLabel:
    """A labelled item: its kind, input fields, label fields, and the assessments they came from."""

    kind: str  # "mt" or "equiv"
    inputs: dict[str, str]
    labels: dict[str, Any]
    assessment_ids: list[str] = field(default_factory=list)


def _is_score_name(name: str) -> bool:
    return name == MQM_LABEL or name.endswith("_mqm")


def _is_verdict_name(name: str) -> bool:
    return name == VERDICT_LABEL or name.endswith("_verdict")


def updated_ms(assessment: Any) -> int:
    """When the assessment was last changed (created, if never updated), in ms."""
    return assessment.last_update_time_ms or assessment.create_time_ms or 0


def _time(assessment: Any) -> tuple[int, int, str]:
    return updated_ms(assessment), assessment.create_time_ms or 0, assessment.assessment_id or ""


def latest_human(assessments: Sequence[Any], accepts: Callable[[str], bool]) -> Any | None:
    """The latest valid human assessment whose name ``accepts``; None when there is none."""
    found = [a for a in assessments
             if accepts(a.name) and a.valid is not False and a.source is not None
             and str(a.source.source_type) == "HUMAN"]
    return max(found, key=_time, default=None)


def value_of(assessment: Any) -> Any:
    """The value of an expectation or a feedback."""
    expectation = getattr(assessment, "expectation", None)
    if expectation is not None:
        return expectation.value
    return assessment.feedback.value if getattr(assessment, "feedback", None) is not None else None


def mqm_score(value: Any) -> float:
    """A human MQM score: a finite number <= 0 (a numeric string as typed in the UI counts)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise LabelProblem(NOT_A_SCORE, repr(value)[:80])
    try:
        score = float(value)
    except ValueError:
        raise LabelProblem(NOT_A_SCORE, repr(value)[:80]) from None
    if not math.isfinite(score) or score > 0:
        raise LabelProblem(NOT_A_SCORE, repr(value)[:80])
    return score


def _offsets(error: dict[str, Any], text: str) -> tuple[int | None, int | None]:
    start, end = error.get("start"), error.get("end")
    if start is None and end is None:
        span = error.get("span")
        if span is None:
            return None, None
        where = text.find(str(span))
        if not span or where < 0:
            raise LabelProblem(BAD_ERRORS, f"span {str(span)[:40]!r} is not in the text")
        return where, where + len(str(span))
    if not (isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(text)):
        raise LabelProblem(BAD_ERRORS, f"offsets {start!r}-{end!r} are not inside the text")
    return start, end


def error_spans(value: Any, source: str, translation: str) -> list[dict[str, Any]]:
    """Human error spans in the shape of TED MQM's ``gold_errors`` (see the module docstring)."""
    if not isinstance(value, list):
        raise LabelProblem(BAD_ERRORS, f"a {type(value).__name__}")
    errors = []
    for error in value:
        if not isinstance(error, dict) or not isinstance(error.get("category"), str):
            raise LabelProblem(BAD_ERRORS, "an error without a category")
        severity = str(error.get("severity", "")).lower()
        if severity not in SEVERITIES:
            raise LabelProblem(BAD_ERRORS, f"severity {error.get('severity')!r}")
        in_source = bool(error.get("is_source_error", False))
        start, end = _offsets(error, source if in_source else translation)
        errors.append({"start": start, "end": end, "severity": severity, "category": error["category"],
                       "is_source_error": in_source})
    return errors


def _text(inputs: dict[str, Any], outputs: Any, name: str) -> str | None:
    value = inputs.get(name)
    if value is None and name == "translation" and isinstance(outputs, str):
        value = outputs  # mlflow.genai.evaluate rows: the translation is the row's outputs
    return value if isinstance(value, str) and value.strip() else None


def trace_kind(inputs: Any) -> str | None:
    """``"equiv"`` for a hypothesis pair, ``"mt"`` for a translation item, None otherwise."""
    if not isinstance(inputs, dict):
        return None
    if "hypothesis_a" in inputs and "hypothesis_b" in inputs:
        return "equiv"
    return "mt" if "source" in inputs else None


def mt_label(inputs: dict[str, Any], outputs: Any, assessments: Sequence[Any]) -> TraceLabel:
    """An MT item and its human MQM score (and spans, if marked); :class:`LabelProblem` otherwise."""
    score_label = latest_human(assessments, _is_score_name)
    errors_label = latest_human(assessments, lambda name: name == ERRORS_LABEL)
    if score_label is None and errors_label is None:
        raise LabelProblem(NO_LABEL)
    texts = {name: _text(inputs, outputs, name) for name in MT_FIELDS}
    if texts["source"] is None or texts["translation"] is None:
        raise LabelProblem(NO_ITEM)
    if texts["source_lang"] is None or texts["target_lang"] is None:
        raise LabelProblem(NO_LANGUAGES)
    errors = None if errors_label is None else error_spans(value_of(errors_label), texts["source"],
                                                            texts["translation"])
    if score_label is not None:
        score = mqm_score(value_of(score_label))
    else:
        score = human_mqm_score(errors)  # only spans were marked: their WMT-weighted penalty
    used = [a.assessment_id for a in (score_label, errors_label) if a is not None]
    return TraceLabel("mt", texts, {"gold_score": score, "gold_errors": errors}, used)


def equiv_label(inputs: dict[str, Any], assessments: Sequence[Any]) -> TraceLabel:
    """A hypothesis pair and its human verdict; :class:`LabelProblem` otherwise."""
    label = latest_human(assessments, _is_verdict_name)
    if label is None:
        raise LabelProblem(NO_LABEL)
    verdict = value_of(label)
    if not isinstance(verdict, str) or verdict.strip().lower() not in VERDICTS:
        raise LabelProblem(NOT_A_VERDICT, repr(verdict)[:80])
    pair = {name: inputs.get(name) for name in ("hypothesis_a", "hypothesis_b")}
    if not all(isinstance(v, str) and v.strip() for v in pair.values()):
        raise LabelProblem(NOT_AN_ITEM, "a hypothesis is empty")
    return TraceLabel("equiv", pair, {"verdict": verdict.strip().lower(), "kind": str(inputs.get("kind") or "")},
                      [label.assessment_id])


def trace_label(inputs: Any, outputs: Any, assessments: Sequence[Any]) -> TraceLabel:
    """The labelled item of a trace (MT or equivalence, by its inputs); :class:`LabelProblem` otherwise."""
    kind = trace_kind(inputs)
    if kind == "equiv":
        return equiv_label(inputs, assessments)
    if kind == "mt":
        return mt_label(inputs, outputs, assessments)
    if latest_human(assessments, lambda name: True) is None:
        raise LabelProblem(NO_LABEL)
    raise LabelProblem(NOT_AN_ITEM)

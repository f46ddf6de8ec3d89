"""Human-labelled TED MQM examples as demos each MT judge's predictors can use.

A training example (``tribunal.optimizers.training_data``, spec ``mqm-ted:LP``) carries the human
errors (``gold_errors``: character offsets, category, severity) but none of a program's output
fields, so DSPy would drop it as a demo. ``PROGRAM_LABELS[program][predictor]`` converts it into a
demo with that predictor's inputs and typed outputs, or None when the human annotation cannot be
expressed in the predictor's schema (the example is then no demo for that predictor, rather than
a misleading one). Predictors without an entry (debaters, the final judge, MQM-APE's post-editor
and verifier) get no labelled demos: there is no human label for a debate turn or a post-edit.
The error conversion itself is the one the default demo pools use (:mod:`tribunal.programs.mqm.demos`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import dspy

from tribunal.core.judges import JUDGES
from tribunal.programs.mqm.demos import dimension_errors, esa_errors, gemba_errors, split_category
from tribunal.programs.mqm.joint import label as candidate_label
from tribunal.programs.mqm.scoring import esa_from_mqm
from tribunal.programs.mqm.segment_inputs import SEGMENT_KEYS
from tribunal.signatures.mqm.errors import DIMENSIONS, tag
from tribunal.signatures.mqm.item_fields import MT_ITEM_FIELDS

MT_INPUTS = MT_ITEM_FIELDS  # the one definition (signatures/mqm/item_fields.py)
# Severities that are errors; "neutral" annotations weigh nothing in the human MQM score.
ERROR_SEVERITIES = ("minor", "major", "critical")

Label = Callable[[Any], "dspy.Example | None"]


@dataclass(frozen=True)
class HumanError:
    """One human error of a training example, shaped like an ``MQMRow`` for the demo converters."""

    category: str
    severity: str | None
    span: str | None
    is_source_error: bool


def human_errors(example: Any) -> list[HumanError]:
    """The example's human errors (neutral ones left out), spans cut from the source or translation."""
    errors = []
    for gold in example.get("gold_errors") or ():
        if gold.get("severity") not in ERROR_SEVERITIES:
            continue
        text = example.source if gold.get("is_source_error") else example.translation
        start, end = gold.get("start"), gold.get("end")
        span = text[start:end] if start is not None and end is not None else None
        errors.append(HumanError(gold.get("category") or "", gold["severity"], span, bool(gold.get("is_source_error"))))
    return errors


def _demo(example: Any, **outputs: Any) -> dspy.Example:
    inputs = {name: example.get(name, "") for name in MT_INPUTS}
    inputs |= {name: example[name] for name in SEGMENT_KEYS if example.get(name) is not None}  # reference, context
    return dspy.Example(**inputs, **outputs).with_inputs(*inputs)


def _describe(error: Any, dimension: str) -> str:
    where = " (in the source)" if error.is_source_error else ""
    return f"'{error.span}'{where} is a {error.severity} {dimension} error ({error.subcategory})"


def rationale(errors: list, dimension: str) -> str:
    """A short rationale for a dimension's errors, as a demo shows it."""
    if not errors:
        return f"No {dimension} errors."
    return "; ".join(_describe(e, dimension) for e in errors) + "."


def gemba_label(example: Any) -> dspy.Example | None:
    """GEMBA-MQM's ``annotate``: every human error in GEMBA's scheme (None if one has no span)."""
    errors = human_errors(example)
    if any(e.span is None for e in errors):
        return None
    return _demo(example, errors=gemba_errors(errors))


def dimension_label(dimension: str, example: Any) -> dspy.Example | None:
    """An M-MAD dimension agent: the human errors of ``dimension`` as its typed errors, with a rationale."""
    errors = dimension_errors(human_errors(example), dimension)
    if errors is None:
        return None
    return _demo(example, rationale=rationale(errors, dimension), errors=errors)


def coupled_label(example: Any) -> dspy.Example | None:
    """M-MAD without stage 1 (``coupled``): all human errors tagged with their dimension.

    None when an error is outside the four dimensions (e.g. "Other") or does not fit its schema.
    """
    errors = human_errors(example)
    if any(split_category(e.category)[0] not in DIMENSIONS for e in errors):
        return None
    tagged, reasons = [], []
    for dimension in DIMENSIONS:
        typed = dimension_errors(errors, dimension)
        if typed is None:
            return None
        tagged += tag(typed, dimension)
        reasons += [_describe(e, dimension) for e in typed]
    return _demo(example, rationale="; ".join(reasons) + "." if reasons else "", errors=tagged)


def eaprompt_label(example: Any) -> dspy.Example | None:
    """EAPrompt's ``analyse``: an analysis listing the human errors, then the major and minor counts.

    Critical errors count as major (EAPrompt has two severities).
    """
    errors = human_errors(example)
    lines = []
    for number, error in enumerate(errors, 1):
        severity = "minor" if error.severity == "minor" else "major"
        what = f"'{error.span}'" if error.span is not None else "(no marked span)"
        lines.append(f"{number}. {what}: {error.category.lower()}, {severity}.")
    major = sum(e.severity != "minor" for e in errors)
    return _demo(example, analysis="\n".join(lines) or "No errors.", major_errors=major,
                 minor_errors=len(errors) - major)


def esa_spans_label(example: Any) -> dspy.Example | None:
    """GEMBA-ESA's span step (``annotate``): every human error as an ESA span (critical counts as major)."""
    errors = human_errors(example)
    if any(e.span is None for e in errors):
        return None
    return _demo(example, errors=esa_errors(errors))


def esa_score_label(example: Any) -> dspy.Example | None:
    """GEMBA-ESA's score step (``rate``): the human errors as the spans, the human MQM score on ESA's scale.

    TED MQM has no 0-100 judgments; the score shown is :func:`esa_from_mqm` of the human MQM score
    (no error 100, one major 80, a penalty of 25 or more 0), the mapping the optimizer metric uses
    to compare ESA scores with MQM labels. The same demo serves the ablation without spans, whose
    signature simply has no ``errors`` field to show.
    """
    errors = human_errors(example)
    if any(e.span is None for e in errors) or example.get("gold_score") is None:
        return None
    return _demo(example, errors=esa_errors(errors), score=esa_from_mqm(float(example.gold_score)))


def error_free_label(example: Any) -> dspy.Example | None:
    """The error-free judge's ``decide``: error-free when the human marked no error (neutral ones aside),
    the gold rule of ``tribunal.eval.meta.error_free`` for MQM; None without a human annotation."""
    if example.get("gold_errors") is None:
        return None
    return _demo(example, error_free=not human_errors(example))


def joint_label(group: Any) -> dspy.Example | None:
    """Joint-MQM's ``annotate`` from a group example (``tribunal.optimizers.group_examples``): the candidates
    labelled A, B, ... in the members' order, each with its human errors in GEMBA's scheme (None if a member
    has an error without a span, or the group has no members)."""
    members = group.get("members") or []
    errors = [human_errors(m) for m in members]
    if not members or any(e.span is None for each in errors for e in each):
        return None
    labels = [candidate_label(n) for n in range(len(members))]
    candidates = [{"label": lab, "translation": m.get("translation", "")} for lab, m in zip(labels, members)]
    judgments = [{"candidate": lab, "errors": gemba_errors(each)} for lab, each in zip(labels, errors)]
    inputs = {"source": group.get("source", ""), "source_lang": group.get("source_lang", ""),
              "target_lang": group.get("target_lang", ""), "candidates": candidates}
    return dspy.Example(**inputs, judgments=judgments).with_inputs(*inputs)


class _ProgramLabels(Mapping):
    """``{program: {predictor: label}}`` of every registered judge with labels, read from the registry."""

    def __getitem__(self, program: str) -> dict[str, Label]:
        judge = JUDGES.find(program)
        if judge is None or judge.labels is None:
            raise KeyError(program)
        return judge.label_functions()

    def __iter__(self) -> Iterator[str]:
        return iter([judge.name for judge in JUDGES if judge.labels is not None])

    def __len__(self) -> int:
        return len(list(iter(self)))


# Each judge's labels; its registry entry (tribunal.core.judges) names them.
GEMBA_LABELS: dict[str, Label] = {"annotate": gemba_label}
EAPROMPT_LABELS: dict[str, Label] = {"analyse": eaprompt_label}
MMAD_LABELS: dict[str, Label] = {**{dimension: functools.partial(dimension_label, dimension) for dimension in DIMENSIONS},
                                 "coupled": coupled_label}
ESA_LABELS: dict[str, Label] = {"annotate": esa_spans_label, "rate": esa_score_label}
APE_LABELS: dict[str, Label] = {"evaluate": gemba_label}
ERROR_FREE_LABELS: dict[str, Label] = {"decide": error_free_label}
JOINT_LABELS: dict[str, Label] = {"annotate": joint_label}

PROGRAM_LABELS: Mapping[str, dict[str, Label]] = _ProgramLabels()
"""``{program name: {predictor path: label}}`` for every MT program the optimizers can tune."""

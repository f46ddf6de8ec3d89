"""Judge-vs-human agreement in MLflow: per item, the human label as an expectation and the judge's
verdict as feedback on the item's trace (written with the trace, :class:`TraceWriter`); for the run,
kappa / accuracy / Pearson as metrics and the confusion matrix as a table and a plot
(:mod:`tribunal.eval.meta.judge_human` computes them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from tribunal.eval.meta.judge_human import JudgeHumanAgreement, agreement, confusion_figure


@dataclass
class LabelledVerdict:
    """One item: its trace (None if not traced), the human label and the judge's verdict."""

    trace_id: str | None
    human: Any
    judge: Any
    rationale: str | None = None


def item_assessments(human: Any, judge: Any, human_name: str, judge_name: str, human_source: str,
                     judge_source: str, rationale: str | None = None) -> list[Any]:
    """The human label as an MLflow ``Expectation`` and the judge's verdict as a ``Feedback`` (None: left out)."""
    from mlflow.entities import AssessmentSource, AssessmentSourceType, Expectation, Feedback  # heavy: mlflow, scipy

    found: list[Any] = []
    if human is not None:
        found.append(Expectation(name=human_name, value=human,
                                 source=AssessmentSource(AssessmentSourceType.HUMAN, human_source)))
    if judge is not None or rationale:
        found.append(Feedback(name=judge_name, value=judge, rationale=rationale,
                              source=AssessmentSource(AssessmentSourceType.LLM_JUDGE, judge_source)))
    return found


def log_agreement(run: Any, result: JudgeHumanAgreement, title: str, prefix: str = "judge_vs_human.") -> None:
    """Metrics, the confusion matrix (TSV) and its plot on ``run``."""
    run.log_metrics(result.metrics(prefix))
    stem = prefix.rstrip(".").replace(".", "_")
    run.log_text(result.confusion.to_csv(sep="\t"), f"{stem}_confusion.tsv")
    run.log_figure(confusion_figure(result, title), f"{stem}_confusion.png")


def categorical_agreement(verdicts: Sequence[LabelledVerdict], labels: Sequence[Any], band=None,
                          scores: bool = False) -> JudgeHumanAgreement:
    """Agreement of ``verdicts`` (``band`` maps a score to a label; ``scores``: also Pearson on the raw values)."""
    band = band or (lambda value: value)
    return agreement([band(v.judge) for v in verdicts], [band(v.human) for v in verdicts], labels,
                     [v.judge for v in verdicts] if scores else None, [v.human for v in verdicts] if scores else None)

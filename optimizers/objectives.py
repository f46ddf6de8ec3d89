"""What ``tribunal optimize --objective`` selects and reports candidates by: a registry of objectives.

An objective is a function ``(predictions, golds) -> float`` over the whole dev set (higher is
better; a prediction is None where the program failed). Registered:

============================ ====== ======================================================================
name                         kind   value
============================ ====== ======================================================================
item                         both   today's per-item proxy: the mean of the judge metric (unscored items 0)
seg-acc-eq                   mt     segment-level acc_eq with tie calibration (``mt meta-eval``)
kendall                      mt     Kendall's tau-b of judge and human scores (``mt agreement``)
pearson                      mt     segment-level Pearson (``mt meta-eval``)
balanced-accuracy            equiv  mean recall of "same" and "different"
f1-different                 equiv  F1 of the "different" verdicts
span-mpp                     mt     micro MPP F of the error spans (target side)
mcc-error-free               mt     MCC of the error-free labels (WMT26 subtask 3; a correlation)
balanced-accuracy-error-free mt     mean recall of "error-free" and "has errors"
f1-error-free                mt     F1 of the error-free class
============================ ====== ======================================================================

The error-free objectives and their labels: :mod:`tribunal.optimizers.error_free_objectives`.

A *mix* weights several: ``seg-acc-eq=0.7,item=0.3`` is ``(0.7 * a + 0.3 * b) / (0.7 + 0.3)`` over
the values on a 0..1 scale (a correlation ``r`` enters as ``(r + 1) / 2``, as ``mt meta-eval``'s
average does). :func:`register_objective` adds one more (``span-mpp``, say) without touching the rest.
The worst case for unscored items is each statistic's own (:mod:`tribunal.optimizers.corpus_objectives`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from tribunal.errors import UserError
from tribunal.optimizers import corpus_objectives as stats
from tribunal.optimizers import error_free_objectives as error_free
from tribunal.optimizers.group_examples import member_pairs

Statistic = Callable[[Sequence[Any], Sequence[Any]], float]
DEFAULT_OBJECTIVE = "item"


@dataclass(frozen=True)
class ObjectiveSpec:
    """One registered statistic: its name, the judge kinds it applies to, its range."""

    name: str
    kinds: tuple[str, ...]
    statistic: Statistic | None
    """None for ``item``, which is the judge metric itself (see :meth:`Objective.value`)."""
    correlation: bool = False
    description: str = ""

    def normalise(self, value: float) -> float:
        """The value on 0..1 (a correlation's ``(r + 1) / 2``)."""
        return (value + 1) / 2 if self.correlation else value


OBJECTIVES: dict[str, ObjectiveSpec] = {}


def register_objective(spec: ObjectiveSpec) -> None:
    """Add an objective (a name already registered is replaced)."""
    OBJECTIVES[spec.name] = spec


for _spec in (
    ObjectiveSpec("item", ("mt", "equiv"), None, description="mean per-item judge metric (unscored: 0)"),
    ObjectiveSpec("seg-acc-eq", ("mt",), stats.seg_acc_eq, description="segment-level acc_eq, tie-calibrated"),
    ObjectiveSpec("kendall", ("mt",), stats.kendall, correlation=True, description="Kendall's tau-b"),
    ObjectiveSpec("pearson", ("mt",), stats.pearson, correlation=True, description="segment-level Pearson r"),
    ObjectiveSpec("balanced-accuracy", ("equiv",), stats.balanced_accuracy,
                  description="mean recall of same and different"),
    ObjectiveSpec("f1-different", ("equiv",), stats.f1_different, description="F1 of 'different'"),
    ObjectiveSpec("span-mpp", ("mt",), stats.span_mpp, description="micro MPP F of the error spans (target side)"),
    ObjectiveSpec("mcc-error-free", ("mt",), error_free.mcc_error_free, correlation=True,
                  description="MCC of the error-free labels (WMT26 subtask 3)"),
    ObjectiveSpec("balanced-accuracy-error-free", ("mt",), error_free.balanced_accuracy_error_free,
                  description="mean recall of error-free and has-errors"),
    ObjectiveSpec("f1-error-free", ("mt",), error_free.f1_error_free, description="F1 of the error-free class"),
):
    register_objective(_spec)


@dataclass(frozen=True)
class Objective:
    """A parsed ``--objective``: one statistic, or a weighted mix of them."""

    parts: tuple[tuple[ObjectiveSpec, float], ...]
    metric: Any
    """The judge metric (a :class:`~tribunal.optimizers.metric_base.JudgeMetric`), which ``item`` averages."""

    @property
    def name(self) -> str:
        """The canonical text (``seg-acc-eq`` or ``seg-acc-eq=0.7,item=0.3``)."""
        if len(self.parts) == 1:
            return self.parts[0][0].name
        return ",".join(f"{spec.name}={weight:g}" for spec, weight in self.parts)

    @property
    def is_item(self) -> bool:
        """Whether this is the per-item proxy alone (the optimizers' own choice stands)."""
        return self.name == "item"

    def item_scores(self, predictions: Sequence[Any], golds: Sequence[Any]) -> list[float]:
        """The judge metric per item (unscored: 0), what ``item`` averages."""
        return [self.metric.outcome(g, p).score or 0.0 for p, g in zip(predictions, golds)]

    def _one(self, spec: ObjectiveSpec, predictions: Sequence[Any], golds: Sequence[Any],
             item_scores: Sequence[float] | None) -> float:
        if spec.statistic is None:
            scores = self.item_scores(predictions, golds) if item_scores is None else item_scores
            return sum(scores) / len(scores) if len(scores) else 0.0
        return float(spec.statistic(*member_pairs(predictions, golds)))  # a group: its members, one per translation

    def value(self, predictions: Sequence[Any], golds: Sequence[Any],
              item_scores: Sequence[float] | None = None) -> float:
        """The objective on these predictions (a mix: weighted mean of the 0..1 values).

        ``item_scores``: the judge metric per item when already computed (:meth:`item_scores`).
        """
        if len(self.parts) == 1:
            return self._one(self.parts[0][0], predictions, golds, item_scores)
        total = sum(weight for _, weight in self.parts)
        return sum(weight * spec.normalise(self._one(spec, predictions, golds, item_scores))
                   for spec, weight in self.parts) / total


def objective_names(kind: str | None = None) -> list[str]:
    return [name for name, spec in OBJECTIVES.items() if kind is None or kind in spec.kinds]


def parse_objective(text: str, kind: str, metric: Any) -> Objective:
    """``item``, ``seg-acc-eq`` or ``NAME=W,NAME=W`` for a judge of ``kind``; a one-line UserError otherwise."""
    parts = []
    for piece in (p.strip() for p in text.split(",")):
        name, sep, weight_text = piece.partition("=")
        name = name.strip()
        if name not in OBJECTIVES:
            raise UserError(f"--objective {text}: unknown objective {name!r} "
                            f"(for {kind} judges: {', '.join(objective_names(kind))})")
        spec = OBJECTIVES[name]
        if kind not in spec.kinds:
            raise UserError(f"--objective {text}: {name} is not an objective for {kind} judges "
                            f"(have {', '.join(objective_names(kind))})")
        try:
            weight = float(weight_text) if sep else 1.0
        except ValueError:
            raise UserError(f"--objective {text}: weight {weight_text!r} of {name} is not a number") from None
        if not weight > 0:
            raise UserError(f"--objective {text}: weight of {name} must be positive")
        if any(s.name == name for s, _ in parts):
            raise UserError(f"--objective {text}: {name} given twice")
        parts.append((spec, weight))
    if len(parts) > 1 and not all("=" in p for p in text.split(",")):
        raise UserError(f"--objective {text}: a mix needs a weight for each part (e.g. seg-acc-eq=0.7,item=0.3)")
    return Objective(tuple(parts), metric)

"""The dev report of a ``tribunal optimize`` run: each program's dev scores as metrics and rows, and
the objective part (artifact ``dev/objective.json``, also in the export's metadata)."""

from __future__ import annotations

import json
from typing import Any

from tribunal.optimizers.dev_eval import DevScore
from tribunal.optimizers.dev_reliability import MAX_UNSCORED_SHARE, SLACK, unscored_rule
from tribunal.optimizers.objective_report import DRAWS, LEVEL, ObjectiveScores


def log_scores(run: Any, dev: DevScore, label: str, both: ObjectiveScores | None = None) -> None:
    """Log ``dev`` as ``dev_<label>_*`` metrics (with its objective and item intervals) and its rows as
    ``dev/<label>.jsonl``."""
    run.log_metrics(dev.metrics(f"dev_{label}_"))
    if both is not None:
        run.log_metrics({**both.objective.metrics(f"dev_{label}_objective"), **both.item.metrics(f"dev_{label}_item")})
    run.log_text("\n".join(json.dumps(row) for row in dev.rows()) + "\n", f"dev/{label}.jsonl")


def objective_report(objective: str, scores: dict[str, ObjectiveScores], selection: Any,
                     devs: dict[str, DevScore] | None = None, rejected: str | None = None) -> dict[str, Any]:
    """The dev report's objective part (artifact ``dev/objective.json``, the export's metadata): each
    program's scores beside its scored / unscored / degraded counts (``devs``), how unscored items
    counted, and why a tuned program was ``rejected`` (too often unusable), if it was."""
    report: dict[str, Any] = {"objective": objective, "interval": f"bootstrap percentile {LEVEL:.0%} over segments, "
                                                                  f"{DRAWS} draws, seeded by --seed",
                              "unscored_counted": unscored_rule(objective),
                              "reliability_rule": f"a candidate with more than {MAX_UNSCORED_SHARE:.0%} of its dev "
                                                  f"items unscored and {SLACK:.0%} more than the untuned program "
                                                  "is not chosen"}
    for label, both in scores.items():
        report[label] = {"objective": both.objective.record(), "item": both.item.record(),
                         **((devs or {})[label].counts() if label in (devs or {}) else {})}
    if rejected is not None:
        report["rejected"] = rejected
    if selection is not None and selection.finalists:
        report["finalists"] = [{"source": f.source, "optimizer_score": _finite(f.own_score),
                                "objective": _finite(f.objective), "item": _finite(f.item), **(f.counts or {}),
                                "unreliable": f.unreliable, "chosen": f is selection.chosen}
                               for f in selection.finalists]
    return report


def _finite(value: float | None) -> float | None:
    """``value``, or None for NaN (the report is strict JSON)."""
    return None if value is None or value != value else value

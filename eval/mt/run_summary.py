"""An MT run's typed summary (:class:`~tribunal.core.run_summary.RunSummary`) from its result and its cap."""

from __future__ import annotations

from typing import Any

from tribunal.core.run_summary import CapStatus, ItemCounts, RunSummary, role_usage
from tribunal.runner.meter import add_summaries


def cap_status(cap: Any, items_left: int) -> CapStatus | None:
    """What a :class:`~tribunal.runner.spending_cap.SpendingCap` allowed and left (None without a cap)."""
    if cap is None or not cap.active:
        return None
    cost_left, calls_left = cap.left()
    return CapStatus(max_cost_usd=cap.max_cost, max_calls=cap.max_calls, spent_usd=round(cap.spent, 8),
                     calls_sent=cap.sent, cost_left_usd=None if cost_left is None else round(cost_left, 8),
                     calls_left=calls_left, stopped_by=cap.stopped_by if items_left else None,
                     items_left=items_left, resume=cap.resume if items_left else None)


def mt_run_summary(result: Any, cap: Any, run_id: str | None) -> RunSummary:
    """The summary of ``mt evaluate``'s :class:`~tribunal.eval.mt.job.EvaluationResult`."""
    s = result.summary
    usage = add_summaries([r.usage for r in result.results.values()])
    left = s["items"] - s["judged"]
    status = cap_status(cap, left)
    details = dict(s) | {"outputs_folder": str(result.paths["seg"].parent)}
    return RunSummary(
        command="mt evaluate", signature=result.signature, mlflow_run_id=run_id, calls=s["lm_calls"],
        spend_usd=s["cost_usd"], spend=s["cost"], prompt_tokens=s["prompt_tokens"],
        completion_tokens=s["completion_tokens"], reasks=s.get("lm_reasks", 0),
        runaways=sum(v for k, v in (usage.get("runaways") or {}).items() if "/" not in k),
        wall_seconds=s["wall_seconds"],
        items=ItemCounts(total=s["items"], scored=s["scored"], unscored=s["unscored"], degraded=s.get("degraded", 0),
                         left=left, unscored_reasons=s["unscored_reasons"],
                         degraded_reasons=s.get("degraded_by_role", {})),
        roles=role_usage(usage), meta=result.meta, spans=result.spans,
        stopped_by=status.stopped_by if status else None, cap=status,
        outputs={k: str(v) for k, v in result.paths.items()}, details=details)

"""``tribunal optimize``'s summary as data: the run's :class:`~tribunal.core.run_summary.RunSummary`.

Written as ``summary.json`` beside the exported program (the ``--out`` file's folder: a later optimize
run exporting to the same folder replaces it), read back by :func:`tribunal.read_run_summary`; the
terminal summary is rendered from it alone (:func:`tribunal.cli.optimize_report.print_optimize_summary`).

- ``calls``, ``prompt_tokens``, ``completion_tokens``, ``spend_usd``: every LM call of the job, the
  optimizer's search and the dev evaluations (:mod:`tribunal.optimizers.lm_calls`), response-cache
  hits included in ``calls`` (``roles[...].cached`` counts them); the spend prices the provider's
  token counts per role's model (None when a model has no price);
- ``roles``: per ``PHASE/ROLE`` (``dev/task``, ``search/task``, ``search/teacher``, ``search/prompt``);
- ``items``: the dev items of the program exported (the tuned one, or the untuned one when the tuned
  candidate was not kept), scored / unscored (with reasons) / degraded;
- ``details``: the dev scores untuned and tuned with their counts, the objective's figures, the trials,
  the rejected candidate (and why), the skipped traces and the registered model.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any, Mapping

from tribunal.core.run_summary import ItemCounts, RunSummary, role_usage
from tribunal.data.run_summary_file import summary_path, write_run_summary
from tribunal.eval.tracking.usage_metrics import usage_metrics
from tribunal.optimizers.dev_reliability import unscored_rule
from tribunal.programs.pricing import spend

COMMAND = "optimize"


def optimize_usage_metrics(usage: Mapping[str, Mapping[str, int]], models: Mapping[str, str | None]) -> dict:
    """The per-role calls / tokens / usd metrics (and totals) of an optimize run's counter summary."""
    return usage_metrics(usage, models.get("task") or "", {k: v for k, v in models.items() if v})


def _spend(usage: Mapping[str, Mapping[str, int]], models: Mapping[str, str | None]) -> Any:
    """The :class:`~tribunal.programs.pricing.Spend` of the counter's tokens, each role at its model's price."""
    prompt: dict[str, int] = defaultdict(int)
    completion: dict[str, int] = defaultdict(int)
    for field, into in (("prompt_tokens", prompt), ("completion_tokens", completion)):
        for key, n in (usage.get(field) or {}).items():
            role = key.split("/", 1)[-1]
            into[models.get(role) or models.get("task") or "unknown"] += n
    return spend(prompt, completion)


def _dev(dev: Any) -> dict[str, Any]:
    return {"score": dev.score, **dev.counts(), "unscored_reasons": dict(dev.reasons)}


def _details(result: Any) -> dict[str, Any]:
    scores = {label: {"objective": both.objective.text(), "item": both.item.text()}
              for label, both in result.scores.items()}
    return {"dev": {"untuned": _dev(result.untuned), "tuned": _dev(result.tuned),
                    "rejected": _dev(result.rejected) if result.rejected is not None else None},
            "rejected_reason": result.rejected_reason, "trials": result.trials, "objective": result.objective,
            "scores": scores, "unscored_rule": unscored_rule(result.objective),
            "skipped": {role: dict(counts) for role, counts in result.skipped.items() if counts},
            "model_uri": getattr(result.model, "uri", None)}


def optimize_run_summary(result: Any, usage: Mapping[str, Mapping[str, int]], models: Mapping[str, str | None],
                         wall_seconds: float) -> RunSummary:
    """The summary of an :class:`~tribunal.optimizers.optimize_job.OptimizeResult` and its counter's usage."""
    cost = _spend(usage, models)
    roles = role_usage(usage)
    tuned = result.tuned
    return RunSummary(
        command=COMMAND, signature=result.signature, mlflow_run_id=result.run_id,
        calls=sum(r.calls for r in roles.values()), spend_usd=round(cost.usd, 8) if cost.known else None,
        spend=cost.describe(), prompt_tokens=sum(r.prompt_tokens for r in roles.values()),
        completion_tokens=sum(r.completion_tokens for r in roles.values()),
        reasks=sum(r.reasks for r in roles.values()), wall_seconds=round(wall_seconds, 3),
        items=ItemCounts(total=tuned.n, scored=tuned.scored, unscored=tuned.unscored, degraded=tuned.degraded,
                         unscored_reasons=dict(tuned.reasons)),
        roles=roles, stopped_by=result.stopped_by, cap=result.cap,
        outputs={"program": str(result.out), "summary": str(summary_path(Path(result.out).parent))},
        details=_details(result))


def write_optimize_summary(summary: RunSummary) -> Path:
    """Write ``summary`` as ``summary.json`` in the exported program's folder."""
    return write_run_summary(summary.outputs["summary"], summary)

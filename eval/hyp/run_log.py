"""The MLflow run of a ``tribunal hyp run`` job: its traces, metrics, stored runs, usage and summary."""

from __future__ import annotations

import json
import time
from typing import Any, Sequence

from tribunal.eval.hyp.engagement_job import engagement_shares
from tribunal.eval.hyp.run_summary import JobFigures, hyp_run_summary
from tribunal.eval.tracking.hyp_run import log_workflow_traces
from tribunal.eval.tracking.usage_metrics import usage_metrics
from tribunal.eval.usage_summary import usage_fields
from tribunal.programs.hyp_engagement import ROLE as ENGAGEMENT_ROLE


def log_workflow_run(run: Any, instances: Sequence[Any], records: Sequence[Any], job: JobFigures, sig: str,
                     usage: dict, cap: Any, clock: float) -> Any:
    """Log the job's traces, metrics, runs and usage to its MLflow run; returns its summary (also logged)."""
    log_workflow_traces(run, {i.id: i for i in instances}, records)
    run.log_metrics({"runs": len(records), "runs_failed": sum(not r.ok for r in records), "runs_reused": job.reused,
                     "runs_labelled": job.labelled, "delivered": sum(len(r.delivered) for r in records),
                     "truncated": sum(r.truncated for r in records),
                     "degraded_rounds": sum(len(r.degraded) for r in records)})
    for depth, shares in engagement_shares(records).items():
        run.log_metrics({f"engagement/d{depth}/{k}": v for k, v in shares.items()})
    run.log_text(json.dumps([r.model_dump(mode="json") for r in records], indent=1), "runs.json")
    role_models = {ENGAGEMENT_ROLE: job.judge} if job.judge else {}
    run.log_metrics(usage_metrics(usage, job.model, role_models))
    run.log_metrics({"lm_calls": float(usage_fields(usage)["calls"]), "wall_seconds": time.perf_counter() - clock})
    summary = hyp_run_summary(records, job, sig, run.run_id, usage, cap)
    run.log_text(summary.model_dump_json(indent=2), "summary.json")
    return summary

"""``hyp run``'s :class:`~tribunal.core.run_summary.RunSummary`: what ``summary.json`` holds.

Its items are the workflow's *runs* (instance x depth x rerun): ``scored`` the runs stored without errors
(``degraded`` among them: a round carried the previous revision on), ``unscored`` those with an opening
unscored, ``left`` those a spending cap kept from starting or cut short (not stored: the resumed job runs
them, their finished calls from the response cache). The LM figures are this command's calls (the
workflow's roles and the engagement judge's). ``details`` holds every figure of the terminal summary, so
``tribunal.cli.hyp_run.print_run`` renders the file alone.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from tribunal.core.run_summary import ItemCounts, RunSummary
from tribunal.data.run_summary_file import summary_path, write_run_summary
from tribunal.eval.mt.run_summary import cap_status
from tribunal.eval.usage_summary import usage_fields

COMMAND = "hyp run"


@dataclass
class JobFigures:
    """What the job did besides its records."""

    runs: int
    reused: int
    left: int
    unlabelled: int
    labelled: int
    unreadable: list[str] = field(default_factory=list)
    out: str = ""
    wall_seconds: float = 0.0
    model: str = ""
    judge: str | None = None


def _degraded_rounds(record: Any) -> str:
    return "; ".join(f"opening {d['opening']}: {d['role']} ({d['reason']})" for d in record.degraded)


def hyp_run_summary(records: Sequence[Any], job: JobFigures, signature: str, run_id: str | None, usage: dict,
                    cap: Any) -> RunSummary:
    """The summary of ``hyp run`` (``records``: the stored runs, old and new)."""
    failed = [r for r in records if not r.ok]
    degraded = [r for r in records if r.ok and r.degraded]
    roles = Counter(d["role"] for r in degraded for d in r.degraded)
    status = cap_status(cap, job.left + job.unlabelled)
    details = {
        "runs": len(records), "instances": len({r.instance for r in records}), "out": job.out, "reused": job.reused,
        "labelled": job.labelled, "unlabelled": job.unlabelled, "judge": job.judge, "unreadable": list(job.unreadable),
        "failed": [{"run": f"{r.instance}/{r.run_id}", "errors": list(r.errors)} for r in failed],
        "degraded": [{"run": f"{r.instance}/{r.run_id}", "rounds": len(r.degraded), "detail": _degraded_rounds(r)}
                     for r in degraded],
        "delivered": sum(len(r.delivered) for r in records), "truncated": sum(r.truncated for r in records)}
    return RunSummary(
        command=COMMAND, signature=signature, mlflow_run_id=run_id, **usage_fields(usage),
        wall_seconds=round(job.wall_seconds, 3),
        items=ItemCounts(total=job.runs, scored=len(records) - len(failed), unscored=len(failed),
                         degraded=len(degraded), left=job.left,
                         unscored_reasons={"an opening unscored (unusable answer or LM failure)": len(failed)}
                         if failed else {}, degraded_reasons=dict(roles)),
        stopped_by=status.stopped_by if status else None, cap=status, outputs={"folder": job.out},
        details=details)


def write_hyp_summary(out: str | Path, summary: RunSummary) -> RunSummary:
    """Write ``summary`` as ``out/summary.json``; returns it."""
    write_run_summary(summary_path(out), summary)
    return summary

"""``equiv audit``'s :class:`~tribunal.core.run_summary.RunSummary`: what ``summary.json`` holds.

Its items are *pair judgments*: every pair of the suite, once per repeat, by every rule of the audit
(``total`` = rules x repeats x pairs); ``scored`` and ``unscored`` count those of the rules audited to the
end, ``left`` the rest (the rules a spending cap stopped: their finished judgments are in the journal and
are read back by the resumed run). The LM figures are those of the LLM judges' meters (calls this command
made; judgments read back from the journal cost none). ``details`` holds every figure the terminal summary
prints (the tables as records), so ``tribunal.cli.equiv_report.print_audit`` renders the file alone.
"""

from __future__ import annotations

import json
from typing import Any, Sequence

from tribunal.core.run_summary import ItemCounts, RunSummary
from tribunal.eval.mt.run_summary import cap_status
from tribunal.eval.usage_summary import usage_fields

COMMAND = "equiv audit"


def _plain(value: Any) -> Any:
    """numpy scalars and anything else JSON does not know, as plain values."""
    item = getattr(value, "item", None)
    return item() if callable(item) else str(value)


def plain(value: Any) -> Any:
    """``value`` as it reads back from JSON (numpy scalars unwrapped, tuples as lists)."""
    return json.loads(json.dumps(value, default=_plain, ensure_ascii=False))


def _records(frame: Any) -> list[dict[str, Any]]:
    return [] if frame is None else plain(frame.to_dict("records"))


def _rule_details(audit: Any) -> dict[str, Any]:
    calibration = {k: v for k, v in audit.params.items() if k == "threshold" or k == "threshold_rule"
                   or k.startswith("calibration_")}
    return {"label": audit.label, "seconds": audit.seconds, "summary": plain(audit.summary),
            "params": plain(calibration), "routes": _records(audit.routes) if audit.routes is not None else None}


def audit_details(result: Any, savings: Sequence[dict], rules_left: Sequence[str]) -> dict[str, Any]:
    """The figures ``print_audit`` shows, as JSON-ready data."""
    suite = result.suite
    return {"suite": {"name": suite.name, "pairs": len(suite.pairs), "hash": suite.hash},
            "table": _records(result.table()) if result.rules else [],
            "agreement": _records(result.agreement),
            "rules": [_rule_details(audit) for audit in result.rules],
            "cascade": plain(list(savings)), "rules_left": list(rules_left),
            "files_folder": str(result.files[0].parent) if result.files else None}


def audit_run_summary(result: Any, rules: int, repeats: int, usage: dict, cap: Any, savings: Sequence[dict],
                      rules_left: Sequence[str], wall_seconds: float, outputs: dict[str, str]) -> RunSummary:
    """The summary of an audit (``result``: an ``AuditResult``, its rules those audited to the end)."""
    pairs = len(result.suite.pairs)
    judged = [j for audit in result.rules for repeat in audit.repeats for j in repeat]
    scored = sum(j.same is not None for j in judged)
    total = rules * repeats * pairs
    left = total - len(judged)
    reasons: dict[str, int] = {}
    for judgment in judged:
        if judgment.same is None:
            reasons[judgment.reason or "unscored"] = reasons.get(judgment.reason or "unscored", 0) + 1
    status = cap_status(cap, left)
    return RunSummary(
        command=COMMAND, signature=result.signature, mlflow_run_id=result.run_id, **usage_fields(usage),
        wall_seconds=round(wall_seconds, 3),
        items=ItemCounts(total=total, scored=scored, unscored=len(judged) - scored, left=left,
                         unscored_reasons=reasons),
        stopped_by=status.stopped_by if status else None, cap=status, outputs=outputs,
        details=audit_details(result, savings, rules_left))

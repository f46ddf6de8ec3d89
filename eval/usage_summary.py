"""A run's LM usage as the fields of its :class:`~tribunal.core.run_summary.RunSummary`, from a usage meter.

Shared by the commands whose calls one :class:`~tribunal.runner.meter.UsageMeter` (or several, summed with
:func:`~tribunal.runner.meter.add_summaries`) counted: ``equiv audit`` and ``hyp run``.
"""

from __future__ import annotations

from typing import Any, Mapping

from tribunal.core.run_summary import role_usage
from tribunal.programs.pricing import spend


def _total(counts: Mapping[str, int] | None) -> int:
    """The sum over the meter's stage keys (``stage/role`` keys repeat them)."""
    return int(sum(v for k, v in (counts or {}).items() if "/" not in k))


def usage_fields(usage: Mapping[str, Mapping[str, int]]) -> dict[str, Any]:
    """``calls``, ``spend_usd`` (None when a model is unpriced), ``spend`` in words, tokens, re-asks,
    runaways and ``roles`` of a summed meter summary."""
    cost = spend(usage.get("model_prompt_tokens") or {}, usage.get("model_completion_tokens") or {})
    return {"calls": _total(usage.get("calls")), "spend_usd": round(cost.usd, 8) if cost.known else None,
            "spend": cost.describe(), "prompt_tokens": _total(usage.get("prompt_tokens")),
            "completion_tokens": _total(usage.get("completion_tokens")), "reasks": _total(usage.get("reasks")),
            "runaways": _total(usage.get("runaways")), "roles": role_usage(dict(usage))}


def paid_calls(usage: Mapping[str, Mapping[str, int]]) -> int:
    """Calls answered by the provider (neither from the response cache nor failed)."""
    return _total(usage.get("calls")) - _total(usage.get("cached")) - _total(usage.get("failed"))

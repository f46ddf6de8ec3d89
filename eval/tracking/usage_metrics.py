"""Spend and tokens as MLflow metrics, in total and per role, from a run's usage meter summaries.

Per role ``ROLE`` (the meter's ``stage/role`` keys summed over stages): ``role.ROLE.calls``,
``role.ROLE.prompt_tokens``, ``role.ROLE.completion_tokens`` and, where the role's model is priced in
LiteLLM's bundled table, ``role.ROLE.usd``. In total: ``usage.prompt_tokens``,
``usage.completion_tokens`` and ``usage.usd`` (absent for an unpriced model: never logged as 0).
``tribunal mt evaluate --estimate`` reads the per-role answer lengths back
(:mod:`tribunal.eval.estimate.measured`).
"""

from __future__ import annotations

from collections import Counter
from typing import Mapping

from tribunal.programs.pricing import token_rates


def _by_role(counts: Mapping[str, int]) -> Counter[str]:
    roles: Counter[str] = Counter()
    for key, value in counts.items():
        if "/" in key:
            roles[key.split("/", 1)[1]] += value
    return roles


def usage_metrics(usage: Mapping[str, Mapping[str, int]], default_model: str,
                  role_models: Mapping[str, str] | None = None, batch: bool = False) -> dict[str, float]:
    """The metrics of a summed usage summary (:func:`tribunal.runner.meter.add_summaries`)."""
    calls, prompt = _by_role(usage.get("calls", {})), _by_role(usage.get("prompt_tokens", {}))
    completion = _by_role(usage.get("completion_tokens", {}))
    metrics: dict[str, float] = {}
    total_usd: float | None = 0.0
    for role in sorted(set(calls) | set(prompt) | set(completion)):
        metrics[f"role.{role}.calls"] = float(calls[role])
        metrics[f"role.{role}.prompt_tokens"] = float(prompt[role])
        metrics[f"role.{role}.completion_tokens"] = float(completion[role])
        rates = token_rates((role_models or {}).get(role, default_model), batch)
        if rates is None:
            total_usd = None
            continue
        metrics[f"role.{role}.usd"] = prompt[role] * rates[0] + completion[role] * rates[1]
        total_usd = None if total_usd is None else total_usd + metrics[f"role.{role}.usd"]
    metrics["usage.prompt_tokens"] = float(sum(prompt.values()))
    metrics["usage.completion_tokens"] = float(sum(completion.values()))
    if total_usd is not None:
        metrics["usage.usd"] = total_usd
    return metrics

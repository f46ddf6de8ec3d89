"""``tribunal optimize``'s terminal summary, rendered from its ``summary.json`` alone.

:func:`print_optimize_summary` reads nothing but the :class:`~tribunal.core.run_summary.RunSummary`
(:mod:`tribunal.optimizers.optimize_summary` builds it), so the file read back renders the same lines.
"""

from __future__ import annotations

from typing import Any

from tribunal.cli.cap_options import cap_lines
from tribunal.cli.console import line
from tribunal.cli.numbers import number
from tribunal.errors import EXIT_CAPPED


def dev_counts(dev: dict[str, Any]) -> str:
    """``"27 scored, 3 unscored, 1 degraded of 30"``: a dev score's counts, beside its scores."""
    return f"{dev['scored']} scored, {dev['unscored']} unscored, {dev['degraded']} degraded of {dev['items']}"


def usage_line(summary: Any) -> str:
    """``LM calls: 60 (dev/task 40, search/teacher 20): 55 answered by the provider, ...; tokens ...; spend ...``."""
    roles = ", ".join(f"{key} {usage.calls}" for key, usage in summary.roles.items()) or "none"
    paid = sum(u.paid for u in summary.roles.values())
    cached = sum(u.cached for u in summary.roles.values())
    failed = sum(u.failed for u in summary.roles.values())
    return (f"LM calls: {summary.calls} ({roles}): {paid} answered by the provider, {cached} from the response "
            f"cache, {failed} failed; of which {summary.reasks} re-asks; tokens (provider usage): "
            f"{summary.prompt_tokens} in, {summary.completion_tokens} out; spend: {summary.spend}")


def summary_lines(summary: Any) -> list[str]:
    """The lines of the summary, in the order the terminal shows them."""
    d = summary.details
    untuned, tuned, rejected = d["dev"]["untuned"], d["dev"]["tuned"], d["dev"]["rejected"]
    lines = [f"dev score: untuned {number(untuned['score'])} -> tuned {number(tuned['score'])} "
             f"({tuned['unscored']} unscored of {tuned['items']}); {d['trials']} trial(s)"]
    if rejected is not None:
        lines.append(f"tuned candidate not kept: {d['rejected_reason']}; its dev score {number(rejected['score'])} "
                     f"({dev_counts(rejected)}); the untuned program is exported")
    for label in ("untuned", "tuned"):
        both = d["scores"].get(label)
        if both is not None:
            lines.append(f"dev {label}: objective {d['objective']} {both['objective']}; item metric {both['item']}  "
                         f"(95% bootstrap intervals); {dev_counts(d['dev'][label])}")
    lines.append(f"unscored dev items: {d['unscored_rule']}")
    lines.append(usage_line(summary))
    lines.append(f"wall time: {summary.wall_seconds:.1f} s")
    lines.append(f"program: {summary.outputs['program']}  (summary: {summary.outputs['summary']})")
    lines.append(f"signature: {summary.signature}")
    for role, skipped in d["skipped"].items():  # an mlflow: slice: traces without a usable human label
        reasons = ", ".join(f"{n} {reason}" for reason, n in sorted(skipped.items(), key=lambda kv: -kv[1]))
        lines.append(f"{role}: {sum(skipped.values())} trace(s) skipped: {reasons}")
    if d.get("model_uri"):
        lines.append(f"model: {d['model_uri']}  (mlflow.pyfunc.load_model; the LM comes from params or TRIBUNAL_LM)")
    if summary.mlflow_run_id:
        lines.append(f"run: {summary.mlflow_run_id}  (export again with `tribunal export {summary.mlflow_run_id} "
                     "--out FILE`)")
    lines += cap_lines(summary.cap, "the optimizer's search was cut short")
    if summary.stopped_by:
        lines.append(f"stopped by {summary.stopped_by}: the program above is the best candidate scored in full "
                     f"before it (exit status {EXIT_CAPPED})")
    return lines


def print_optimize_summary(console: Any, summary: Any) -> None:
    """Print the summary's lines (see :func:`summary_lines`)."""
    for text in summary_lines(summary):
        line(console, text)

"""``--max-cost USD`` and ``--max-calls N``: the spending caps of every command that calls an LM.

The cap itself is :class:`tribunal.runner.spending_cap.SpendingCap`; this module holds the options,
the cap they make (with the command that resumes the run) and the summary's line about it.
"""

from __future__ import annotations

import shlex
import sys
from typing import Any, Optional

import typer

from tribunal.cli.numbers import money
from tribunal.errors import EXIT_CAPPED

MaxCostOption: Optional[float] = typer.Option(
    None, "--max-cost", metavar="USD", min=0.0,
    help="Spend at most USD dollars on this command's LM calls (LiteLLM's price table): no call is sent that "
         "could pass it (its prompt and its max tokens priced), the calls in flight finish and are kept, "
         f"and the run ends with exit status {EXIT_CAPPED}; rerunning the command resumes. Needs a priced model.")
MaxCallsOption: Optional[int] = typer.Option(
    None, "--max-calls", metavar="N", min=1,
    help=f"Send at most N LM calls to the provider in this command (response-cache hits are free); as --max-cost, "
         f"the run then ends with exit status {EXIT_CAPPED} and rerunning the command resumes.")


def resume_command(ctx: Any = None) -> str:
    """The command being run, as a user would type it again: its path and every option given a value
    other than its default (rebuilt from the command's ``typer.Context``, so it reads the same however
    the command was invoked); without a context, ``sys.argv``."""
    if ctx is None:
        return shlex.join(["tribunal", *sys.argv[1:]])
    words = ["tribunal", *ctx.command_path.split()[1:]]
    for param in ctx.command.params:
        value = ctx.params.get(param.name)
        if not getattr(param, "opts", None) or value is None or value == param.default or value in ((), []):
            continue
        if getattr(param, "is_flag", False):
            if param.secondary_opts and not value:
                words.append(param.secondary_opts[0])
            elif value:
                words.append(param.opts[0])
            continue
        for item in value if isinstance(value, (list, tuple)) else [value]:
            words += [param.opts[0], str(item)]
    return shlex.join(words)


def make_cap(max_cost: float | None, max_calls: int | None, batch: bool = False, ctx: Any = None) -> Any:
    """The :class:`~tribunal.runner.spending_cap.SpendingCap` of the options (None when neither is given);
    ``ctx``: the command's ``typer.Context``, for the command that resumes."""
    if max_cost is None and max_calls is None:
        return None
    from tribunal.runner.spending_cap import SpendingCap  # heavy: pulls in dspy

    return SpendingCap(max_cost=max_cost, max_calls=max_calls, batch=batch, resume=resume_command(ctx))


def cap_lines(status: Any, left: str | None = None) -> list[str]:
    """The summary's lines about a cap (a :class:`~tribunal.core.run_summary.CapStatus`; none without one);
    ``left``: what the stop left undone, in words (default: the items left)."""
    if status is None:
        return []
    limits = []
    if status.max_cost_usd is not None:
        limits.append(f"spent {money(status.spent_usd)} of --max-cost {money(status.max_cost_usd)} "
                      f"({money(status.cost_left_usd)} left)")
    if status.max_calls is not None:
        limits.append(f"{status.calls_sent} calls sent of --max-calls {status.max_calls} ({status.calls_left} left)")
    if status.max_calls is None:
        limits.append(f"{status.calls_sent} calls sent")
    lines = ["spending cap: " + "; ".join(limits)]
    if status.stopped_by:
        left = left or (f"{status.items_left} items left (not judged, nothing of them journaled); the calls in "
                        "flight finished and are kept")
        lines.append(f"  stopped by {status.stopped_by}: {left}")
        lines.append(f"  resume (finished items are not asked again; the calls of the items cut short come from "
                     f"the response cache): {status.resume}")
    return lines

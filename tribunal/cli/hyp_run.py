"""What ``tribunal hyp run`` does with its options (:class:`RunArgs`): the instances loaded, the run
folder chosen, an estimate or the workflow run under the cap, its summary printed and its exit status."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, List, Optional

import typer

from tribunal.cli.cap_options import cap_lines, make_cap
from tribunal.cli.console import console as make_console
from tribunal.cli.console import line
from tribunal.cli.errors import UserError
from tribunal.cli.estimate_options import show_estimate
from tribunal.cli.lm_args import LMArgs, TrackingArgs
from tribunal.cli.numbers import count
from tribunal.errors import EXIT_CAPPED, EXIT_UNSCORED


@dataclass
class RunArgs(LMArgs, TrackingArgs):
    """The options of ``tribunal hyp run``, as the command received them (see its ``--help``)."""

    instance: Optional[List[Path]]
    depths: str
    reruns: int
    temperature: float
    max_per_opening: int
    judge_lm: Optional[str]
    judge_temperature: float
    engagement: bool
    threads: int
    out: Optional[Path]
    max_cost: Optional[float]
    max_calls: Optional[int]
    estimate: bool
    as_json: bool



def parse_depths(text: str) -> list[int]:
    """``--depths``: distinct comma-separated integers >= 0."""
    try:
        depths = [int(d) for d in text.split(",") if d.strip()]
    except ValueError as err:
        raise UserError(f"--depths {text!r}: expected comma-separated integers") from err
    if not depths or any(d < 0 for d in depths) or len(set(depths)) != len(depths):
        raise UserError(f"--depths {text!r}: expected distinct integers >= 0")
    return depths


def load_run_instances(instance: Optional[List[Path]]) -> list:
    """The ``--instance`` files' instances (default: the shipped example); a missing or bad file is a user error."""
    from tribunal.eval.hyp.instance import load_instances  # heavy: pulls in pydantic

    for path in instance or []:
        if not path.is_file():
            raise UserError(f"{path}: no such instance file")
    try:
        return load_instances(instance)
    except ValueError as err:
        raise UserError(str(err)) from err


def run_folder(args: RunArgs, loaded: list) -> Path:
    """``--out``, or ``tribunal-out/hyp-runs/<instance>_<lm>-<hash>``: runs of another LM or instance are
    never reused as this one's."""
    if args.out is not None:
        return args.out
    from tribunal.eval.tracking.run_names import config_folder, short_lm  # startup: kept out of `tribunal --help`

    names = "+".join(i.id for i in loaded)
    return config_folder("tribunal-out/hyp-runs", f"{names}_{short_lm(args.lm)}",
                         f"{[i.model_dump_json() for i in loaded]}|{args.lm}|{args.api_base}|{args.temperature}")


def run_hyp_command(ctx: typer.Context, args: RunArgs) -> None:
    """Check the options, then estimate (``--estimate``) or run the workflow into the run folder, print its
    summary and exit with the capped or unscored status when it applies."""
    from tribunal.data.output_paths import writable_folder  # startup: kept out of `tribunal --help`
    from tribunal.eval.hyp.run_job import RunSettings, run_workflow  # heavy: pulls in dspy, pydantic
    from tribunal.programs.lm import LMSettings  # heavy: pulls in pydantic

    loaded = load_run_instances(args.instance)
    out = run_folder(args, loaded)
    writable_folder(out, "--out")
    console = make_console()
    if args.judge_lm is not None and not args.engagement:
        raise UserError("--judge-lm: the engagement judge does not run with --no-engagement")
    if args.reruns > 1 and args.temperature == 0:
        make_console(stderr=True).print("[yellow]note:[/yellow] --temperature 0: the reruns are fresh calls, but a "
                                        "deterministic model will answer them alike")
    settings = RunSettings(depths=parse_depths(args.depths), reruns=args.reruns, max_per_opening=args.max_per_opening,
                           threads=args.threads)
    judge = args.judge_lm or args.lm
    lm_settings = args.lm_settings(args.temperature)
    judge_settings = args.lm_settings(args.judge_temperature, model=judge) if args.engagement else None
    if args.estimate:
        from tribunal.eval.estimate.hyp_estimate import estimate_hyp_run  # startup: kept out of `tribunal --help`

        return show_estimate(estimate_hyp_run(loaded, settings, lm_settings, judge_settings, out), args.as_json)
    lm_obj = args.build_lm(args.temperature)
    public = LMSettings(model=args.lm, api_base=args.api_base, temperature=args.temperature).public()
    judge_obj = judge_public = None
    if args.engagement:
        judge_obj = args.build_lm(args.judge_temperature, model=judge)
        judge_public = LMSettings(model=judge, api_base=args.api_base, temperature=args.judge_temperature).public()
    cap = make_cap(args.max_cost, args.max_calls, ctx=ctx)
    if cap is not None:
        cap.check_models([args.lm, judge] if args.engagement else [args.lm])
    result = run_workflow(loaded, settings, lm_obj, public, out,
                          args.tracking_settings(),
                          judge_obj, judge_public, cap=cap)
    if result.summary is not None:  # None: a stand-in job (tests) that wrote no summary
        finish_run(console, result.summary)


def finish_run(console: Any, summary: Any) -> None:
    """Print the summary, then exit status 5 if a cap stopped the job, or the unscored status if runs have
    unscored slots."""
    print_run(console, summary)
    if summary.stopped_by:
        line(console, f"stopped by {summary.stopped_by} (exit status {EXIT_CAPPED})")
        raise typer.Exit(EXIT_CAPPED)
    if summary.items.unscored:
        line(console, f"{summary.items.unscored} runs with unscored slots: rerun the same command to run them again "
                      f"(exit status {EXIT_UNSCORED})")
        raise typer.Exit(EXIT_UNSCORED)


def print_run(console: Any, summary: Any) -> None:
    """The job's summary, rendered from its :class:`~tribunal.core.run_summary.RunSummary` alone (what
    ``summary.json`` holds), so the file read back renders the same text."""
    d = summary.details
    say = lambda text: line(console, text)  # noqa: E731
    for problem in d["unreadable"]:
        say(f"run again: {problem}")
    left = f", {summary.items.left} left" if summary.items.left else ""
    say(f"{d['runs']} runs of {d['instances']} instance(s) in {d['out']} ({d['reused']} reused, "
        f"{len(d['failed'])} with errors, {d['labelled']} labelled by the engagement judge{left})")
    for failed in d["failed"]:
        say(f"{failed['run']}: {'; '.join(failed['errors'])}")
    for degraded in d["degraded"]:
        say(f"{degraded['run']}: degraded, {degraded['rounds']} round(s) carried the previous revision on: "
            f"{degraded['detail']}")
    roles = ", ".join(f"{role} {count(r.calls)}" for role, r in summary.roles.items())
    say(f"LM calls: {count(summary.calls)}" + (f" ({roles})" if roles else "") +
        f"; tokens {count(summary.prompt_tokens)} in, {count(summary.completion_tokens)} out; spend: {summary.spend}")
    left_words = None
    if summary.cap is not None and summary.cap.stopped_by:
        left_words = (f"{summary.items.left} runs left (not stored) and {d['unlabelled']} runs not labelled by the "
                      "engagement judge; the runs in flight finished and are stored")
    for text in cap_lines(summary.cap, left_words):
        say(text)
    say(f"signature: {summary.signature}")
    if summary.mlflow_run_id:
        say(f"MLflow run {summary.mlflow_run_id}")

"""What ``tribunal equiv audit`` does with its options (:class:`AuditArgs`): the rules built and
checked, an estimate or the audit run under the cap, its tables printed and its exit status."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

import typer

from tribunal.cli.cap_options import make_cap
from tribunal.cli.console import console as make_console
from tribunal.cli.console import line
from tribunal.cli.equiv_inputs import first_pairs, load_pairs_or_suite, parse_embedding_threshold
from tribunal.cli.equiv_report import print_audit
from tribunal.cli.errors import UserError
from tribunal.cli.estimate_options import show_estimate
from tribunal.cli.lm_args import LMArgs, TrackingArgs
from tribunal.cli.lm_options import independent_repeats_notice
from tribunal.errors import EXIT_CAPPED, EXIT_UNSCORED
from tribunal.eval.equiv.rule_set import build_rules, check_rule_options

TEMPERATURE_0_VOTES = ("--temperature 0: the LLM judge's third vote is no repeated request (it would get the same "
                       "answer); when the two presentation orders disagree, the (A, B) answer counts twice")


@dataclass
class AuditArgs(LMArgs, TrackingArgs):
    """The options of ``tribunal equiv audit``, as the command received them (see its ``--help``)."""

    suite: Optional[Path]
    pairs: Optional[Path]
    rules: str
    rubric: Optional[str]
    temperature: float
    tfidf_threshold: float
    embedding_threshold: str
    embedding_target_rate: Optional[float]
    embedder: str
    chain_threshold: float
    chain_steps: str
    chain_extra_steps: str
    cascade_low: float
    cascade_high: float
    limit: Optional[int]
    repeats: int
    threads: int
    program: Optional[str]
    out: Optional[Path]
    max_cost: Optional[float]
    max_calls: Optional[int]
    estimate: bool
    as_json: bool


def checked_rule_options(args: AuditArgs) -> dict[str, Any]:
    """The rules' options of ``args``, every one checked before anything is loaded, built or paid for."""
    options = dict(tfidf_threshold=args.tfidf_threshold,
                   embedding_threshold=parse_embedding_threshold(args.embedding_threshold),
                   embedding_target_rate=args.embedding_target_rate, embedder=args.embedder,
                   chain_threshold=args.chain_threshold, chain_steps=args.chain_steps,
                   chain_extra_steps=args.chain_extra_steps, cascade_low=args.cascade_low,
                   cascade_high=args.cascade_high, lm_name=args.lm, threads=args.threads)
    check_rule_options(options)
    if args.embedding_target_rate is not None and options["embedding_threshold"] != "auto":
        raise UserError("--embedding-target-rate: only used with --embedding-threshold auto")
    return options


def tuned_judge_options(args: AuditArgs) -> dict[str, Any]:
    """``--program``'s judge as rule options (none without it); ``--rubric`` must then be its own rubric."""
    if args.program is None:
        return {}
    from tribunal.optimizers.program_source import resolve_program  # startup: kept out of `tribunal --help`

    resolved = resolve_program(args.program, expected_kind="equiv")
    own = getattr(resolved.program, "rubric", None)
    if args.rubric is not None and {r.strip() for r in args.rubric.split(",") if r.strip()} != {own}:
        raise UserError(f"--rubric {args.rubric}: the judge of --program {args.program} uses its own rubric ({own}); "
                        "drop --rubric")
    return dict(program=resolved.program, program_label=resolved.label)


def show_audit_estimate(args: AuditArgs, options: dict[str, Any], loaded: Any, rule_objs: list) -> None:
    """``--estimate``: the rules rebuilt on a rehearsal LM; nothing is sent, nothing tracked, nothing written."""
    from tribunal.eval.estimate.equiv_estimate import estimate_audit  # startup: kept out of `tribunal --help`

    lm_settings = args.lm_settings(args.temperature, cache=args.cache and args.repeats == 1)

    def make(rehearsal_lm: Any) -> list:
        """The same rules on the rehearsal LM."""
        return build_rules(args.rules, args.rubric or "full", {**options, "lm": rehearsal_lm})

    show_estimate(estimate_audit(loaded.pairs, make, args.repeats, lm_settings, args.threads,
                                 args.out or default_out(rule_objs, loaded, args.repeats)), args.as_json)


def print_notices(args: AuditArgs, options: dict[str, Any], rule_objs: list) -> None:
    """Notes on stderr about repeats that are not independent and votes at temperature 0."""
    notices = ([independent_repeats_notice(args.repeats, args.temperature, "--repeats")]
               if options["lm"] is not None else [])
    if options["lm"] is not None and args.temperature == 0 and any(r.name in ("llm", "cascade") for r in rule_objs):
        notices.append(TEMPERATURE_0_VOTES)
    for notice in filter(None, notices):
        from rich.markup import escape  # startup: kept out of `tribunal --help`

        make_console(stderr=True).print(f"[yellow]note:[/yellow] {escape(notice)}")


def run_audit_command(ctx: typer.Context, args: AuditArgs) -> None:
    """Check the options, build the rules, then estimate (``--estimate``) or run the audit into ``--out``,
    print it and exit with the capped or unscored status when it applies."""
    from tribunal.cli.progress import progress_bars  # startup: kept out of `tribunal --help`
    from tribunal.data.folder_lock import folder_lock  # startup: kept out of `tribunal --help`
    from tribunal.data.output_paths import writable_folder  # startup: kept out of `tribunal --help`
    from tribunal.eval.equiv.audit_job import run_audit  # heavy: pulls in sklearn, pandas

    options = checked_rule_options(args)
    if args.out is not None:
        writable_folder(args.out, "--out")
    loaded = first_pairs(load_pairs_or_suite(args.suite, args.pairs), args.limit)
    # Repeats meant to be independent must be fresh calls: a cached answer would make them agree by construction.
    options["lm"] = args.build_lm(args.temperature, cache=args.cache and args.repeats == 1)
    options |= tuned_judge_options(args)
    rule_objs = build_rules(args.rules, args.rubric or "full", options)
    if args.estimate:
        return show_audit_estimate(args, options, loaded, rule_objs)
    settings = args.tracking_settings()
    console = make_console()
    print_notices(args, options, rule_objs)
    out = args.out or default_out(rule_objs, loaded, args.repeats)
    writable_folder(out, "--out")
    cap = make_cap(args.max_cost, args.max_calls, ctx=ctx)
    if cap is not None:
        cap.check_models([args.lm] if any(r.name in ("llm", "cascade") for r in rule_objs) else [])
    with folder_lock(out), progress_bars() as report:  # two audits into one folder would mix their tables
        result = audited(report, lambda progress: run_audit(loaded, rule_objs, args.repeats, settings, out,
                                                            progress=progress, cap=cap), len(rule_objs))
    print_audit(console, result.summary)
    finish(console, result, settings)


def finish(console: Any, result: Any, settings: Any) -> None:
    """The run's MLflow line, then exit status 5 if a cap stopped it, or the unscored status if pairs went unscored."""
    if result.run_id:
        line(console, f"MLflow run {result.run_id}; see it with: {settings.ui_command()}")
    if result.stopped_by:
        line(console, f"stopped by {result.stopped_by} (exit status {EXIT_CAPPED})")
        raise typer.Exit(EXIT_CAPPED)
    unscored = {audit.label: int(audit.summary.get("unscored", 0)) for audit in result.rules}
    if any(unscored.values()):
        shown = ", ".join(f"{label} {count}" for label, count in unscored.items() if count)
        line(console, f"unscored pairs (first repeat): {shown} (exit status {EXIT_UNSCORED})")
        raise typer.Exit(EXIT_UNSCORED)


def default_out(rule_objs: list, loaded: Any, repeats: int) -> Path:
    """``tribunal-out/equiv-audit/<rules>_<suite>-<hash>``: one folder per configuration."""
    from tribunal.eval.tracking.run_names import config_folder  # startup: kept out of `tribunal --help`

    labels = "_".join(r.label for r in rule_objs)
    return config_folder("tribunal-out/equiv-audit", f"{labels}_{loaded.name}",
                         repr([(r.label, r.params()) for r in rule_objs] + [loaded.hash, repeats]))


def audited(report: Callable[..., Any], audit: Callable[[Callable[[str], None]], Any], rules: int) -> Any:
    """``audit(progress)`` with its per-rule messages counted on one bar (``rules`` in all)."""
    label = f"auditing {rules} rule(s)"
    started = {"n": 0}

    def next_rule(_message: str) -> None:
        report(label, started["n"], rules)
        started["n"] += 1

    result = audit(next_rule)
    report(label, rules, rules)
    return result

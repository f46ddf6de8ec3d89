"""What ``tribunal hyp divergence`` does with its options (:class:`DivergenceArgs`): the rules built,
the divergence measured under the cap, and its tables printed."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import typer

from tribunal.cli.cap_options import cap_lines, make_cap
from tribunal.cli.console import console as make_console
from tribunal.cli.console import line
from tribunal.cli.errors import UserError
from tribunal.cli.lm_args import LMArgs, TrackingArgs
from tribunal.cli.numbers import number, p_value
from tribunal.errors import EXIT_CAPPED
from tribunal.eval.equiv.rule_set import build_rules


@dataclass
class DivergenceArgs(LMArgs, TrackingArgs):
    """The options of ``tribunal hyp divergence``, as the command received them (see its ``--help``)."""

    run_dir: Path
    rules: str
    rubric: str
    tfidf_threshold: float
    embedding_threshold: float
    embedder: str
    matching: str
    alternative: str
    exact_limit: int
    samples: int
    seed: int
    frame_judge: bool
    out: Optional[Path]
    max_cost: Optional[float]
    max_calls: Optional[int]


def choice(option: str, value: str, allowed: tuple[str, ...]) -> str:
    """``value`` if it is one of ``allowed``; else a user error naming ``option``."""
    if value not in allowed:
        raise UserError(f"{option} {value!r}: expected one of {', '.join(allowed)}")
    return value


def frame_text(frame: Any) -> str:
    """A result table as aligned text: p-values keep their magnitude, other numbers fixed decimals."""
    formatters = {}
    for column in frame.columns:
        name = str(column)
        if frame[column].dtype.kind == "f":
            p_column = name == "p" or name.startswith("p_") or name.endswith("_p")
            formatters[column] = p_value if p_column else number
    return frame.to_string(index=False, formatters=formatters)


def run_divergence_command(ctx: typer.Context, args: DivergenceArgs) -> None:
    """Check the options, build the rules, measure the divergence of ``RUN_DIR``'s runs into ``--out`` and
    print its tables (exit status 5, nothing written, when a cap stops the LM rules)."""
    from tribunal.eval.hyp.divergence import MATCHINGS  # heavy: pulls in numpy, pydantic
    from tribunal.eval.hyp.divergence_job import (DivergenceCapped, DivergenceSettings,
                                                  run_divergence)  # heavy: dspy, pandas
    from tribunal.data.output_paths import writable_folder  # startup: kept out of `tribunal --help`
    from tribunal.eval.hyp.joint_permutation import ALTERNATIVES  # heavy: pulls in numpy

    if not (args.run_dir / "runs").is_dir():
        raise UserError(f"{args.run_dir}: no runs/ folder (write one with `tribunal hyp run`)")
    settings = DivergenceSettings(matching=choice("--matching", args.matching, tuple(MATCHINGS)),
                                  alternative=choice("--alternative", args.alternative, ALTERNATIVES),
                                  max_states=args.exact_limit, samples=args.samples, seed=args.seed,
                                  frame_judge=args.frame_judge)
    out = args.out or args.run_dir / "divergence"
    writable_folder(out, "--out")
    lm = args.build_lm(0.0)
    rule_objs = build_rules(args.rules, args.rubric, dict(tfidf_threshold=args.tfidf_threshold,
                                                          embedding_threshold=args.embedding_threshold,
                                                          embedder=args.embedder, lm=lm, lm_name=args.lm))
    cap = make_cap(args.max_cost, args.max_calls, ctx=ctx)
    if cap is not None:
        cap.check_models([args.lm] if any(r.name in ("llm", "cascade") for r in rule_objs) else [])
    console = make_console()
    try:
        result = run_divergence(args.run_dir, rule_objs,
                                args.tracking_settings(), out, settings,
                                cap=cap)
    except DivergenceCapped as err:
        capped_divergence(console, cap, err.left)
    except ValueError as err:
        raise UserError(str(err)) from err
    print_divergence(console, settings.matching, result)


def print_divergence(console: Any, matching: str, result: Any) -> None:
    """The matched pairs, then the divergence, per-instance, cluster and engagement tables, the signature
    and the MLflow run."""
    from tribunal.eval.hyp.divergence_job import CLUSTER_RULE  # heavy: dspy, pandas

    counts = result.matching
    say = lambda text: line(console, text)  # noqa: E731
    say(f"{matching} matching: {int(counts['matched_pairs'].sum())} matched pairs over "
        f"{int(counts['run_pairs'].sum())} run pairs ({len(counts)} instance(s))")
    for title, frame in (("instance-averaged extra divergence", result.divergence),
                         ("per instance (exact p over that instance's splits)", result.by_instance),
                         (f"clusters ({CLUSTER_RULE})", result.clusters),
                         ("engagement label shares per depth", result.engagement)):
        say("")
        say(f"{title}:")
        for text in frame_text(frame).splitlines():
            say(text)
    say(f"signature: {result.signature}")
    if result.run_id:
        say(f"MLflow run {result.run_id}")


def capped_divergence(console: Any, cap: Any, left: int) -> None:
    """A cap stopped the LM rules: what was spent and left, then exit status 5 (nothing written or logged)."""
    from tribunal.eval.mt.run_summary import cap_status  # heavy: pulls in pydantic

    words = (f"{left} pair judgments left (no table written, no MLflow run); the judgments in flight finished "
             "and their calls are in the response cache")
    for text in cap_lines(cap_status(cap, max(left, 1)), words):
        line(console, text)
    line(console, f"stopped by {cap.stopped_by} (exit status {EXIT_CAPPED})")
    raise typer.Exit(EXIT_CAPPED)

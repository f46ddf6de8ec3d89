"""``tribunal mt evaluate``: run an MT judge (M-MAD or a baseline) over WMT-style data."""

from __future__ import annotations

import os
from pathlib import Path
from typing import List, Optional

import typer

from tribunal.cli.common import NoTrack, TraceSample, TrackingUri, data_root
from tribunal.cli.console import console as make_console
from tribunal.cli.errors import UserError
from tribunal.errors import EXIT_UNSCORED


def evaluate(
    lp: Optional[str] = typer.Option(None, "--lp", help="Language pair, e.g. zh-en."),
    data: Optional[Path] = typer.Option(None, "--data", help="MTME folder (default: $TRIBUNAL_DATA/wmt23)."),
    program: Optional[str] = typer.Option(None, "--program", help="mmad | gemba-mqm | eaprompt | gemba-esa | mqm-ape (default mmad), or a tuned export (.json) from `tribunal export`."),
    preset: Optional[str] = typer.Option(None, "--preset", help="M-MAD protocol: paper (the published one, default) | lean (fewer calls)."),
    strategy: Optional[str] = typer.Option(None, "--strategy", help="consensus | deliberation | interactive-review | consultancy-review."),
    rounds: Optional[int] = typer.Option(None, "--rounds", help="Maximum debate rounds (default 3)."),
    ablate: Optional[List[str]] = typer.Option(None, "--ablate", help="Ablation (repeatable): stage1 | stage2 | stage3 (mmad), spans (gemba-esa), verifier (mqm-ape)."),
    topic: Optional[str] = typer.Option(None, "--topic", help="Debate topic: severity | category | free."),
    lm: Optional[str] = typer.Option(None, "--lm", help="Default LM, e.g. openai/gpt-4o-mini."),
    api_base: Optional[List[str]] = typer.Option(
        None, "--api-base", help="Endpoint URL; repeat it for several replicas of the model (LiteLLM's Router balances them)."),
    routing: Optional[str] = typer.Option(None, "--routing", help="With several --api-base: least-busy (default) | simple-shuffle."),
    batch: Optional[bool] = typer.Option(None, "--batch", help="Send the calls through the provider's batch API "
                                         "(OpenAI, vLLM, Anthropic) at the batch price; results take longer."),
    batch_poll: Optional[float] = typer.Option(None, "--batch-poll", help="First wait between batch status checks, seconds (default 30)."),
    api_key_env: Optional[str] = typer.Option(None, "--api-key-env", help="Env variable holding the API key."),
    cache: Optional[bool] = typer.Option(
        None, "--cache/--no-cache",
        help="Reuse DSPy's response cache (default: on; keyed by model, endpoint and request). "
             "Answers it serves are counted apart and cost nothing."),
    role_lm: Optional[List[str]] = typer.Option(None, "--role-lm", help="ROLE=MODEL or ROLE=MODEL@API_BASE (repeatable), e.g. judge=openai/gpt-4o."),
    systems: Optional[List[str]] = typer.Option(None, "--systems", help="Systems to judge (default: the scored ones)."),
    limit: Optional[int] = typer.Option(None, "--limit", help="At most N unique (source, translation) items."),
    rated_only: Optional[bool] = typer.Option(None, "--rated-only", help="Only cells with a gold MQM score."),
    concurrency: Optional[int] = typer.Option(None, "--concurrency", help="At most this many LM calls in flight (default 8)."),
    processes: Optional[int] = typer.Option(
        None, "--processes", help="Worker processes sharing those calls (default 1; try 2+ at high concurrency)."
    ),
    demos: Optional[int] = typer.Option(None, "--demos", help="Few-shot demos per M-MAD stage-1 agent (default: 4 fixed for paper, 2 for lean)."),
    out: Optional[Path] = typer.Option(None, "--out", help="Output folder (default: tribunal-out/mt/<configuration>-<hash>, one per configuration)."),
    name: Optional[str] = typer.Option(None, "--name", help="Metric name in the score files."),
    retry_unscored: Optional[bool] = typer.Option(None, "--retry-unscored", help="Judge journaled unscored items again."),
    config: Optional[Path] = typer.Option(None, "--config", help="A .toml/.json config; flags override it."),
    trace_sample: Optional[float] = TraceSample,
    tracking_uri: Optional[str] = TrackingUri,
    no_track: bool = NoTrack,
) -> None:
    """Judge translations with an LM judge; write MTME score files, errors and transcripts; meta-evaluate."""
    from pydantic import ValidationError

    from tribunal.cli.common import tracking_settings
    from tribunal.eval.mt.config import EvaluateConfig, load_config_file, merge
    from tribunal.programs.lm import parse_role_lms

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        base = load_config_file(config) if config else {}
        roles = parse_role_lms(role_lm) if role_lm else None
    except (OSError, ValueError) as err:
        raise UserError(str(err)) from None
    mmad = {"preset": preset, "strategy": strategy, "rounds": rounds, "topic": topic}
    role_lms = {r: m.model_dump(exclude_none=True) for r, m in roles.items()} if roles else None
    flags = {"lp": lp, "data": data, "program": program, "mmad": mmad, "role_lms": role_lms,
             "lm": {"model": lm, "api_base": api_base[0] if api_base else None, "api_key_env": api_key_env,
                    "cache": cache},
             "router": {"endpoints": list(api_base) if api_base and len(api_base) > 1 else None, "strategy": routing},
             "batch": {"enabled": batch, "poll_seconds": batch_poll},
             "systems": list(systems) if systems else None, "limit": limit, "rated_only": rated_only,
             "concurrency": concurrency, "processes": processes, "demos": demos, "out": out, "name": name, "retry_unscored": retry_unscored}
    # A tuned export brings its program and settings; explicit flags still override the settings.
    tuned = _tuned_program(program or base.get("program"))
    merged = merge(merge(base, tuned), {**flags, "program": None} if tuned else flags)
    if ablate:
        merged = merge(merged, _ablation(merged.get("program") or "mmad", list(ablate)))
    if not merged.get("data"):
        root = data_root()
        merged["data"] = root / "wmt23" if root else None
    lm_table = merged.get("lm")
    if isinstance(lm_table, dict) and not lm_table.get("model"):
        raise UserError("no LM: pass --lm MODEL (e.g. openai/gpt-4o-mini) or set lm.model in --config")
    try:
        settings = EvaluateConfig.model_validate(merged)
    except ValidationError as err:
        first = err.errors()[0]
        raise UserError(f"{'.'.join(map(str, first['loc']))}: {first['msg']}") from None
    if settings.data is None or not (Path(settings.data) / "sources").is_dir():
        raise UserError(f"{settings.data}: not a folder in the mt-metrics-eval layout (pass --data)")
    result = run_and_report(settings, tracking_settings(tracking_uri, no_track), trace_sample=trace_sample)
    summary = result.summary
    if summary["scored"] < summary["items"]:
        make_console().print(f"{summary['items'] - summary['scored']} of {summary['items']} items unscored "
                             f"(exit status {EXIT_UNSCORED})")
        raise typer.Exit(EXIT_UNSCORED)


def _tuned_program(value: Optional[str]) -> dict:
    """For ``--program FILE``: the exported program's name, settings, file and seal ({} for a name)."""
    from tribunal.eval.mt.config import SETTINGS_SECTIONS
    from tribunal.optimizers.program_source import is_program_file

    if not value or not isinstance(value, str) or not is_program_file(value):
        return {}  # a program name, or a wrong type that the config's validation reports
    from tribunal.optimizers.export import read_export

    document = read_export(value)
    info = document["program"]
    tuned = {"program": info["name"], "program_file": Path(value), "program_sha256": document["sha256"]}
    section = SETTINGS_SECTIONS.get(info["name"])
    if section and info.get("config"):
        tuned[section] = dict(info["config"])
    return tuned


def _ablation(program: str, ablate: list[str]) -> dict:
    """``--ablate`` as the chosen program's setting (its values are checked by the program's config)."""
    from tribunal.eval.mt.config import SETTINGS_SECTIONS

    section = SETTINGS_SECTIONS.get(program)
    if section is None:
        raise UserError(f"--ablate: program {program} has no ablations")
    return {section: {"ablate": ablate}}


def run_and_report(settings, tracking, engine=None, trace_sample=None):
    """Run with a Rich progress bar, print the summary and return the result (shared with ``tribunal demo``)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from tribunal.eval.data.errors import DataFormatError
    from tribunal.eval.mt.job import run_evaluation

    console = make_console()
    with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True) as bar:
        task = bar.add_task(f"{settings.metric_name} {settings.lp}", total=None)
        try:
            result = run_evaluation(settings, tracking, engine,
                                    progress=lambda done, total: bar.update(task, completed=done, total=total),
                                    trace_sample=trace_sample)
        except (ValueError, DataFormatError) as err:
            raise UserError(str(err)) from None
    print_summary(console, result)
    return result


def print_summary(console, result) -> None:
    s = result.summary
    console.print(f"items: {s['items']} unique of {s['cells']} cells ({s['duplicates']} duplicates); "
                  f"scored {s['scored']}, unscored {s['unscored']}, resumed from journal {s['resumed_items']}")
    for reason, count in sorted(s["unscored_reasons"].items()):
        console.print(f"  unscored: {count} x {reason}")
    if s["unscored_retryable"]:
        console.print(f"  {s['unscored_retryable']} unscored without an answer (rate limit, timeout, server, connection): "
                      "rerun the same command to judge them again")
    if s["unscored_permanent"]:
        console.print(f"  {s['unscored_permanent']} unscored with an unusable answer: "
                      "rerun with --retry-unscored to pay for them again")
    stages = ", ".join(f"{k} {v}" for k, v in sorted(s["lm_calls_by_stage"].items())) or "none"
    console.print(f"LM calls: {s['lm_calls']} ({stages}): {s['lm_calls_paid']} answered by the provider, "
                  f"{s['lm_calls_cached']} from the response cache, {s['lm_calls_failed']} failed")
    console.print(f"tokens (provider usage): {s['prompt_tokens']} in, {s['completion_tokens']} out; "
                  f"spend: {s['cost']}")
    spans = s.get("spans", {})
    if any(spans.values()):
        console.print("error spans grounded: " + ", ".join(f"{v} {k}" for k, v in spans.items()))
    for key, value in result.meta.items():
        console.print(f"  {key}: {value:.4f}")
    for key, value in result.spans.items():
        console.print(f"  span {key}: {value:.4f}")
    console.print(f"outputs: {result.paths['seg'].parent}, {result.paths['errors']}, {result.paths['transcripts']}")
    if s.get("system_scores_gap"):
        console.print(f"system scores: not written ({s['system_scores_gap']}): the segment scores cover part of the "
                      "test set only")
    if s.get("batch"):
        b = s["batch"]
        spend = "unknown price" if b["spend_usd_batch_price"] is None else f"${b['spend_usd_batch_price']:.4f} at the batch price"
        console.print(f"batches: {b['batches']} in {b['steps']} steps, {b['requests']} requests "
                      f"({b['answered']} answered, {b['failed']} failed), {b['input_tokens']} tokens in, "
                      f"{b['output_tokens']} out: {spend}")
    console.print(f"wall time: {s['wall_seconds']:.1f} s")
    console.print(f"signature: {result.signature}")
    if result.run_id:
        console.print(f"MLflow run {result.run_id}")


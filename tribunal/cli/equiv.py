"""``tribunal equiv ...``: equivalence judges and their perturbation audit."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from tribunal.cli.common import Experiment, NoTrack, TrackingUri, tracking_settings
from tribunal.cli.console import console as make_console
from tribunal.cli.console import line
from tribunal.cli.help_policy import examples
from tribunal.cli.cap_options import MaxCallsOption, MaxCostOption, cap_lines, make_cap
from tribunal.cli.equiv_audit import AuditArgs, run_audit_command
from tribunal.cli.equiv_inputs import load_suite_or_fail
from tribunal.cli.equiv_options import (AuditOutOption, CascadeHighOption, CascadeLowOption, ChainExtraStepsOption,
                                        ChainStepsOption, ChainThresholdOption, EmbedderOption,
                                        EmbeddingTargetRateOption, EmbeddingThresholdOption, LimitOption, PairsOption,
                                        ProgramOption, RepeatsOption, RubricOption, RulesOption, TemperatureOption,
                                        TfidfThresholdOption, ThreadsOption)
from tribunal.cli.estimate_options import EstimateOption, JsonOption
from tribunal.cli.lm_options import (ApiBaseOption, ApiKeyEnvOption, CacheOption, LmOption, MaxTokensOption,
                                     ReasksOption, TimeoutOption, build_cli_lm)
from tribunal.errors import EXIT_CAPPED

app = typer.Typer(no_args_is_help=True)

SuiteOption = typer.Option(None, "--suite", help="Suite JSONL (seeds and/or checked pairs; default: the shipped suite).")

AUDIT_EPILOG = examples(
    "tribunal equiv audit",
    "tribunal equiv audit --rules tfidf,embedding,llm --rubric full,component --lm openai/gpt-4o-mini",
    "tribunal equiv audit --pairs my_pairs.jsonl --rules cascade --lm openai/gpt-4o-mini --cascade-low 0.5 --cascade-high 0.9",
    "tribunal equiv audit --rules llm --lm openai/gpt-4o-mini --program tribunal-out/optimized/equiv-llm-labeled.json")


@app.command("audit", epilog=AUDIT_EPILOG)
def audit(
    ctx: typer.Context,
    suite: Optional[Path] = SuiteOption,
    pairs: Optional[Path] = PairsOption,
    rules: str = RulesOption,
    rubric: Optional[str] = RubricOption,
    lm: Optional[str] = LmOption,
    api_base: Optional[str] = ApiBaseOption,
    api_key_env: Optional[str] = ApiKeyEnvOption,
    cache: bool = CacheOption,
    reasks: Optional[int] = ReasksOption,
    max_tokens: Optional[int] = MaxTokensOption,
    timeout: Optional[float] = TimeoutOption,
    temperature: float = TemperatureOption,
    tfidf_threshold: float = TfidfThresholdOption,
    embedding_threshold: str = EmbeddingThresholdOption,
    embedding_target_rate: Optional[float] = EmbeddingTargetRateOption,
    embedder: str = EmbedderOption,
    chain_threshold: float = ChainThresholdOption,
    chain_steps: str = ChainStepsOption,
    chain_extra_steps: str = ChainExtraStepsOption,
    cascade_low: float = CascadeLowOption,
    cascade_high: float = CascadeHighOption,
    limit: Optional[int] = LimitOption,
    repeats: int = RepeatsOption,
    threads: int = ThreadsOption,
    program: Optional[str] = ProgramOption,
    out: Optional[Path] = AuditOutOption,
    max_cost: Optional[float] = MaxCostOption,
    max_calls: Optional[int] = MaxCallsOption,
    tracking_uri: Optional[str] = TrackingUri,
    no_track: bool = NoTrack,
    experiment: str = Experiment,
    estimate: bool = EstimateOption,
    as_json: bool = JsonOption,
) -> None:
    """Audit equivalence rules on labelled pairs.

    Judges the perturbation suite (or your --pairs) with each rule and reports, per perturbation
    kind, the share of pairs judged 'different', with agreement between the rules, repeat
    consistency and order flips. Tables go to --out; the run is logged to MLflow.
    """
    run_audit_command(ctx, AuditArgs.of(locals()))


def _capped_generation(console, cap, result, run_id) -> None:
    """A cap stopped the generation: what was spent and left, then exit status 5 (--out not written)."""
    from tribunal.eval.mt.run_summary import cap_status  # heavy: pulls in pydantic

    words = (f"{result.left} perturbations left (not written; --out not written: a partial suite is not a suite); "
             f"{len(result.kept)} kept and {len(result.rejected)} rejected so far, their calls in the response cache")
    for text in cap_lines(cap_status(cap, result.left), words):
        line(console, text)
    if run_id:
        line(console, f"MLflow run {run_id}")
    line(console, f"stopped by {result.stopped_by} (exit status {EXIT_CAPPED})")
    raise typer.Exit(EXIT_CAPPED)


@app.command("generate", epilog=examples(
    "tribunal equiv generate --lm openai/gpt-4o-mini",
    "tribunal equiv generate --lm openai/gpt-4o-mini --out generated.jsonl && "
    "tribunal equiv audit --suite generated.jsonl"))
def generate(
    ctx: typer.Context,
    lm: str = typer.Option(..., "--lm", help="LiteLLM model that writes the perturbations."),
    api_base: Optional[str] = ApiBaseOption,
    api_key_env: Optional[str] = ApiKeyEnvOption,
    cache: bool = CacheOption,
    reasks: Optional[int] = ReasksOption,
    max_tokens: Optional[int] = MaxTokensOption,
    timeout: Optional[float] = TimeoutOption,
    suite: Optional[Path] = SuiteOption,
    temperature: float = typer.Option(0.3, "--temperature", help="Generator sampling temperature."),
    attempts: int = typer.Option(2, "--attempts", min=1, help="Tries per (hypothesis, kind) before giving up."),
    out: Path = typer.Option(Path("tribunal-out/equiv-generated.jsonl"), "--out", metavar="FILE",
                             help="JSONL of the kept pairs (usable as --suite)."),
    max_cost: Optional[float] = MaxCostOption,
    max_calls: Optional[int] = MaxCallsOption,
    tracking_uri: Optional[str] = TrackingUri,
    no_track: bool = NoTrack,
    experiment: str = Experiment,
) -> None:
    """Have an LM write perturbations of the suite's hypotheses.

    For every original hypothesis of the suite and every perturbation kind, the LM writes a
    perturbed version; only those passing the kind's deterministic check are kept (written to
    --out, usable as --suite), the others are listed with the reason. The run is logged to MLflow.
    """
    from tribunal.cli.progress import progress_bars  # startup: kept out of `tribunal --help`
    from tribunal.data.output_paths import writable_file  # startup: kept out of `tribunal --help`
    from tribunal.eval.tracking.generate_run import run_generation  # heavy: pulls in pydantic

    writable_file(out, "--out")
    lm_obj = build_cli_lm(lm, api_base, temperature, api_key_env, cache, reasks, max_tokens, timeout)
    settings = tracking_settings(tracking_uri, no_track, experiment)
    loaded = load_suite_or_fail(suite)
    cap = make_cap(max_cost, max_calls, ctx=ctx)
    if cap is not None:
        cap.check_models([lm])
    with progress_bars() as report:
        result, run_id = run_generation(loaded, lm_obj, lm, settings, out, temperature, attempts,
                                        progress=lambda done, total: report("writing perturbations", done, total),
                                        cap=cap)
    console = make_console()
    if result.stopped_by:
        _capped_generation(console, cap, result, run_id)
    line(console, f"kept {len(result.kept)} perturbations, rejected {len(result.rejected)}; written to {out}")
    if run_id:
        line(console, f"MLflow run {run_id}; see it with: {settings.ui_command()}")
    for item in result.rejected[:20]:
        line(console, f"rejected {item['original']} {item['kind']}: {'; '.join(item['problems'])}")
    if len(result.rejected) > 20:
        where = " (all are in the MLflow run's rejected.json)" if run_id else ""
        line(console, f"... and {len(result.rejected) - 20} more rejected{where}")

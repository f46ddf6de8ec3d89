"""``tribunal hyp ...``: the hypothesis self-critique workflow and run divergence."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from tribunal.cli.common import Experiment, NoTrack, TrackingUri, tracking_settings
from tribunal.cli.console import console as make_console
from tribunal.cli.console import line
from tribunal.cli.errors import UserError
from tribunal.cli.help_policy import examples
from tribunal.cli.cap_options import MaxCallsOption, MaxCostOption, cap_lines, make_cap
from tribunal.cli.estimate_options import EstimateOption, JsonOption, show_estimate
from tribunal.cli.lm_options import (ApiBaseOption, ApiKeyEnvOption, CacheOption, MaxTokensOption, ReasksOption,
                                     TimeoutOption, build_cli_lm, cli_lm_settings)
from tribunal.cli.numbers import count, number, p_value
from tribunal.eval.equiv import defaults
from tribunal.eval.equiv.rule_set import build_rules
from tribunal.errors import EXIT_CAPPED, EXIT_UNSCORED

app = typer.Typer(no_args_is_help=True)


def _depths(text: str) -> list[int]:
    try:
        depths = [int(d) for d in text.split(",") if d.strip()]
    except ValueError as err:
        raise UserError(f"--depths {text!r}: expected comma-separated integers") from err
    if not depths or any(d < 0 for d in depths) or len(set(depths)) != len(depths):
        raise UserError(f"--depths {text!r}: expected distinct integers >= 0")
    return depths


def _choice(option: str, value: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise UserError(f"{option} {value!r}: expected one of {', '.join(allowed)}")
    return value


RUN_EPILOG = examples(
    "tribunal hyp run --lm openai/gpt-4o-mini",
    "tribunal hyp run --instance my_instances.jsonl --depths 0,1,5 --reruns 5 --lm openai/gpt-4o-mini "
    "--judge-lm openai/gpt-4o --out runs/",
    "tribunal hyp divergence runs/")
DIVERGENCE_EPILOG = examples(
    "tribunal hyp divergence tribunal-out/hyp-runs/example_gpt-4o-mini-1a2b3c4d",
    "tribunal hyp divergence runs/ --rules tfidf,llm --lm openai/gpt-4o-mini --rubric full,component")


def frame_text(frame) -> str:
    """A result table as aligned text: p-values keep their magnitude, other numbers fixed decimals."""
    formatters = {}
    for column in frame.columns:
        name = str(column)
        if frame[column].dtype.kind == "f":
            p_column = name == "p" or name.startswith("p_") or name.endswith("_p")
            formatters[column] = p_value if p_column else number
    return frame.to_string(index=False, formatters=formatters)


@app.command("run", epilog=RUN_EPILOG)
def run(
    ctx: typer.Context,
    lm: str = typer.Option(..., "--lm", help="LiteLLM model for the proposer, critic and reviser (the generation model)."),
    api_base: Optional[str] = ApiBaseOption,
    api_key_env: Optional[str] = ApiKeyEnvOption,
    cache: bool = typer.Option(True, "--cache/--no-cache", help="Reuse DSPy's response cache for a resumed run folder "
                               "(reruns are never answered from it: each lineage samples with its own rollout id)."),
    reasks: Optional[int] = ReasksOption,
    max_tokens: Optional[int] = MaxTokensOption,
    timeout: Optional[float] = TimeoutOption,
    instance: Optional[List[Path]] = typer.Option(
        None, "--instance", help="Instance file (repeatable): a JSON object, a JSON list or JSON Lines, each with id, "
        "research_question, observed_finding, opening_hypotheses and optional evidence passages. "
        "Default: the shipped example."),
    depths: str = typer.Option("0,1,5", "--depths", help="Critique rounds K to run (comma-separated)."),
    reruns: int = typer.Option(5, "--reruns", min=1, help="Independent runs per instance and depth (each its own "
                               "samples: never a replay from DSPy's response cache)."),
    temperature: float = typer.Option(0.7, "--temperature", help="Generation temperature (reruns need > 0 to differ)."),
    max_per_opening: int = typer.Option(
        3, "--max-per-opening", min=1, help="Hypotheses kept alive per opening hypothesis: the proposer and reviser may "
        "offer alternatives up to this many (1 = one hypothesis per opening, the workflow before lineages)."),
    judge_lm: Optional[str] = typer.Option(
        None, "--judge-lm", help="LiteLLM model of the post-hoc engagement judge (default: --lm), run after the workflow."),
    judge_temperature: float = typer.Option(0.0, "--judge-temperature", help="Engagement judge temperature."),
    engagement: bool = typer.Option(True, "--engagement/--no-engagement",
                                    help="Label each critique demand answered/conceded/partial/dropped after the runs."),
    threads: int = typer.Option(4, "--threads", min=1, help="Runs executed concurrently."),
    out: Optional[Path] = typer.Option(
        None, "--out", help="Run directory, resumable (default: tribunal-out/hyp-runs/<instance>_<lm>-<hash>, one per instance, LM and temperature)."),
    max_cost: Optional[float] = MaxCostOption,
    max_calls: Optional[int] = MaxCallsOption,
    tracking_uri: Optional[str] = TrackingUri,
    no_track: bool = NoTrack,
    experiment: str = Experiment,
    estimate: bool = EstimateOption,
    as_json: bool = JsonOption,
) -> None:
    """Run the hypothesis proposer/critic workflow.

    For every instance and every critique depth K (--depths), --reruns independent runs: the
    proposer offers hypotheses, then K rounds of critic and reviser; afterwards the engagement judge
    labels how each critique demand was met. Runs are stored in --out (resumable) for
    `tribunal hyp divergence`; the run is logged to MLflow.
    """
    from tribunal.eval.data.output_paths import writable_folder  # startup: kept out of `tribunal --help`
    from tribunal.eval.hyp.instance import load_instances  # heavy: pulls in pydantic
    from tribunal.eval.hyp.run_job import RunSettings, run_workflow  # heavy: pulls in dspy, pydantic
    from tribunal.programs.lm import LMSettings  # heavy: pulls in pydantic

    for path in instance or []:
        if not path.is_file():
            raise UserError(f"{path}: no such instance file")
    try:
        loaded = load_instances(instance)
    except ValueError as err:
        raise UserError(str(err)) from err
    if out is None:  # runs of another LM or instance must never be reused as this one's
        from tribunal.eval.tracking.run_names import config_folder, short_lm  # startup: kept out of `tribunal --help`

        names = "+".join(i.id for i in loaded)
        out = config_folder("tribunal-out/hyp-runs", f"{names}_{short_lm(lm)}",
                            f"{[i.model_dump_json() for i in loaded]}|{lm}|{api_base}|{temperature}")
    writable_folder(out, "--out")
    console = make_console()
    if judge_lm is not None and not engagement:
        raise UserError("--judge-lm: the engagement judge does not run with --no-engagement")
    if reruns > 1 and temperature == 0:
        make_console(stderr=True).print("[yellow]note:[/yellow] --temperature 0: the reruns are fresh calls, but a "
                                        "deterministic model will answer them alike")
    settings = RunSettings(depths=_depths(depths), reruns=reruns, max_per_opening=max_per_opening, threads=threads)
    lm_settings = cli_lm_settings(lm, api_base, temperature, api_key_env, cache, reasks, max_tokens, timeout)
    judge_settings = cli_lm_settings(judge_lm or lm, api_base, judge_temperature, api_key_env, cache, reasks,
                                     max_tokens, timeout) if engagement else None
    if estimate:
        from tribunal.eval.estimate.hyp_estimate import estimate_hyp_run  # startup: kept out of `tribunal --help`

        return show_estimate(estimate_hyp_run(loaded, settings, lm_settings, judge_settings, out), as_json)
    lm_obj = build_cli_lm(lm, api_base, temperature, api_key_env, cache, reasks, max_tokens, timeout)
    public = LMSettings(model=lm, api_base=api_base, temperature=temperature).public()
    judge_obj = judge_public = None
    if engagement:
        judge_obj = build_cli_lm(judge_lm or lm, api_base, judge_temperature, api_key_env, cache, reasks, max_tokens,
                                 timeout)
        judge_public = LMSettings(model=judge_lm or lm, api_base=api_base, temperature=judge_temperature).public()
    cap = make_cap(max_cost, max_calls, ctx=ctx)
    if cap is not None:
        cap.check_models([lm, judge_lm or lm] if engagement else [lm])
    result = run_workflow(loaded, settings, lm_obj, public, out, tracking_settings(tracking_uri, no_track, experiment),
                          judge_obj, judge_public, cap=cap)
    summary = result.summary
    if summary is None:  # a stand-in job (tests) that wrote no summary
        return
    print_run(console, summary)
    if summary.stopped_by:
        line(console, f"stopped by {summary.stopped_by} (exit status {EXIT_CAPPED})")
        raise typer.Exit(EXIT_CAPPED)
    if summary.items.unscored:
        line(console, f"{summary.items.unscored} runs with unscored slots: rerun the same command to run them again "
                      f"(exit status {EXIT_UNSCORED})")
        raise typer.Exit(EXIT_UNSCORED)


def print_run(console, summary) -> None:
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


def _capped_divergence(console, cap, left: int) -> None:
    """A cap stopped the LM rules: what was spent and left, then exit status 5 (nothing written or logged)."""
    from tribunal.eval.mt.run_summary import cap_status  # heavy: pulls in pydantic

    words = (f"{left} pair judgments left (no table written, no MLflow run); the judgments in flight finished "
             "and their calls are in the response cache")
    for text in cap_lines(cap_status(cap, max(left, 1)), words):
        line(console, text)
    line(console, f"stopped by {cap.stopped_by} (exit status {EXIT_CAPPED})")
    raise typer.Exit(EXIT_CAPPED)


@app.command("divergence", epilog=DIVERGENCE_EPILOG)
def divergence(
    ctx: typer.Context,
    run_dir: Path = typer.Argument(..., help="A directory written by `tribunal hyp run`."),
    rules: str = typer.Option("tfidf,embedding", "--rules",
                              help="Comma-separated rules judging 'same mechanism?': tfidf, embedding, chain, llm, cascade."),
    rubric: str = typer.Option("full", "--rubric", metavar="RUBRICS",
                               help="LLM rubric(s), comma-separated: full, stepwise, component, none."),
    lm: Optional[str] = typer.Option(None, "--lm", help="LiteLLM model for the llm and cascade rules (temperature 0)."),
    api_base: Optional[str] = ApiBaseOption,
    api_key_env: Optional[str] = ApiKeyEnvOption,
    cache: bool = CacheOption,
    reasks: Optional[int] = ReasksOption,
    max_tokens: Optional[int] = MaxTokensOption,
    timeout: Optional[float] = TimeoutOption,
    tfidf_threshold: float = typer.Option(
        defaults.TFIDF_THRESHOLD, "--tfidf-threshold",
        help="tfidf rule: TF-IDF cosine similarity at or above which two hypotheses are the 'same'."),
    embedding_threshold: float = typer.Option(
        defaults.EMBEDDING_THRESHOLD, "--embedding-threshold",
        help="embedding rule: embedding cosine similarity at or above which two hypotheses are the 'same'."),
    embedder: str = typer.Option("all-MiniLM-L6-v2", "--embedder", help="all-MiniLM-L6-v2 (offline) or another embedder."),
    matching: str = typer.Option(
        "lineage", "--matching", help="lineage: every pair of hypotheses descending from the same opening hypothesis "
        "(the paper's); slot: one pair per opening (tribunal before lineages)."),
    alternative: str = typer.Option(
        "two-sided", "--alternative", help="two-sided: |T| >= |t| (the paper's test); greater: T >= t (tribunal's "
        "earlier one-sided test)."),
    exact_limit: int = typer.Option(
        2_500_000, "--exact-limit", min=1, help="Largest convolution step of the exact joint test; beyond it the "
        "p-value is sampled."),
    samples: int = typer.Option(100_000, "--samples", min=1, help="Joint splits drawn when the test samples."),
    seed: int = typer.Option(0, "--seed", help="Seed of the sampling fallback."),
    frame_judge: bool = typer.Option(True, "--frame-judge/--no-frame-judge",
                                     help="Give the LLM judge each instance's research question and observed finding."),
    out: Optional[Path] = typer.Option(None, "--out", help="Write the tables as TSV here (default: RUN_DIR/divergence)."),
    max_cost: Optional[float] = MaxCostOption,
    max_calls: Optional[int] = MaxCallsOption,
    tracking_uri: Optional[str] = TrackingUri,
    no_track: bool = NoTrack,
    experiment: str = Experiment,
) -> None:
    """Measure how much runs of the hypothesis workflow diverge.

    Matches hypotheses of two runs (by lineage or slot), judges each matched pair with each rule,
    and reports the instance-averaged extra divergence of cross-depth over same-depth run pairs with
    its exact permutation p-value, per-instance rows, clusters and engagement label shares. Tables
    go to --out as TSV; the run is logged to MLflow.
    """
    from tribunal.eval.hyp.divergence import MATCHINGS  # heavy: pulls in numpy, pydantic
    from tribunal.eval.hyp.divergence_job import (CLUSTER_RULE, DivergenceCapped, DivergenceSettings,  # heavy: dspy, pandas
                                                  run_divergence)
    from tribunal.eval.data.output_paths import writable_folder  # startup: kept out of `tribunal --help`
    from tribunal.eval.hyp.joint_permutation import ALTERNATIVES  # heavy: pulls in numpy

    if not (run_dir / "runs").is_dir():
        raise UserError(f"{run_dir}: no runs/ folder (write one with `tribunal hyp run`)")
    settings = DivergenceSettings(matching=_choice("--matching", matching, tuple(MATCHINGS)),
                                  alternative=_choice("--alternative", alternative, ALTERNATIVES),
                                  max_states=exact_limit, samples=samples, seed=seed, frame_judge=frame_judge)
    writable_folder(out or run_dir / "divergence", "--out")
    options = dict(tfidf_threshold=tfidf_threshold, embedding_threshold=embedding_threshold, embedder=embedder,
                   lm=build_cli_lm(lm, api_base, 0.0, api_key_env, cache, reasks, max_tokens, timeout), lm_name=lm)
    rule_objs = build_rules(rules, rubric, options)
    cap = make_cap(max_cost, max_calls, ctx=ctx)
    if cap is not None:
        cap.check_models([lm] if any(r.name in ("llm", "cascade") for r in rule_objs) else [])
    console = make_console()
    try:
        result = run_divergence(run_dir, rule_objs, tracking_settings(tracking_uri, no_track, experiment),
                                out or run_dir / "divergence", settings, cap=cap)
    except DivergenceCapped as err:
        _capped_divergence(console, cap, err.left)
    except ValueError as err:
        raise UserError(str(err)) from err
    counts = result.matching
    say = lambda text: line(console, text)  # noqa: E731
    say(f"{settings.matching} matching: {int(counts['matched_pairs'].sum())} matched pairs over "
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

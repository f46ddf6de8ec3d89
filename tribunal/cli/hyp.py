"""``tribunal hyp ...``: the hypothesis self-critique workflow and run divergence."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from tribunal.cli.common import Experiment, NoTrack, TrackingUri, tracking_settings
from tribunal.cli.console import console as make_console
from tribunal.cli.errors import UserError

app = typer.Typer(no_args_is_help=True)


def _depths(text: str) -> list[int]:
    try:
        depths = [int(d) for d in text.split(",") if d.strip()]
    except ValueError as err:
        raise UserError(f"--depths {text!r}: expected comma-separated integers") from err
    if not depths or any(d < 0 for d in depths) or len(set(depths)) != len(depths):
        raise UserError(f"--depths {text!r}: expected distinct integers >= 0")
    return depths


@app.command("run")
def run(
    lm: str = typer.Option(..., "--lm", help="LiteLLM model for proposer, critic, reviser and engagement judge."),
    api_base: Optional[str] = typer.Option(None, "--api-base", help="Base URL of an OpenAI-compatible server."),
    instance: Optional[Path] = typer.Option(None, "--instance", help="Instance JSON (default: the shipped example)."),
    depths: str = typer.Option("0,1,5", "--depths", help="Critique rounds K to run (comma-separated)."),
    reruns: int = typer.Option(5, "--reruns", min=1, help="Independent runs per depth."),
    temperature: float = typer.Option(0.7, "--temperature", help="Sampling temperature (reruns need > 0 to differ)."),
    threads: int = typer.Option(4, "--threads", min=1, help="Runs executed concurrently."),
    out: Optional[Path] = typer.Option(
        None, "--out", help="Run directory, resumable (default: tribunal-out/hyp-runs/<instance>_<lm>-<hash>, one per instance, LM and temperature)."),
    tracking_uri: Optional[str] = TrackingUri,
    no_track: bool = NoTrack,
    experiment: str = Experiment,
) -> None:
    """Run the proposer/critic workflow at each depth, several times, storing every run."""
    from tribunal.cli.equiv import build_cli_lm
    from tribunal.eval.hyp.instance import load_instance
    from tribunal.eval.hyp.run_job import run_workflow
    from tribunal.programs.lm import LMSettings

    if instance is not None and not instance.is_file():
        raise UserError(f"{instance}: no such instance file")
    try:
        loaded = load_instance(instance)
    except ValueError as err:
        raise UserError(f"{instance}: {err}") from err
    lm_obj = build_cli_lm(lm, api_base, temperature)
    public = LMSettings(model=lm, api_base=api_base, temperature=temperature).public()
    if out is None:  # runs of another LM or instance must never be reused as this one's
        from tribunal.eval.tracking.run_names import config_folder, short_lm

        out = config_folder("tribunal-out/hyp-runs", f"{loaded.id}_{short_lm(lm)}",
                            f"{loaded.model_dump_json()}|{lm}|{api_base}|{temperature}")
    result = run_workflow(loaded, _depths(depths), reruns, lm_obj, public, out,
                          tracking_settings(tracking_uri, no_track, experiment), threads)
    console = make_console()
    failed = [r for r in result.records if not r.ok]
    console.print(f"{len(result.records)} runs in {out} ({result.reused} reused, {len(failed)} with errors)")
    for record in failed:
        console.print(f"[yellow]{record.run_id}[/yellow]: {'; '.join(record.errors)}")
    console.print(f"signature: {result.signature}")


@app.command("divergence")
def divergence(
    run_dir: Path = typer.Argument(..., help="A directory written by `tribunal hyp run`."),
    rules: str = typer.Option("tfidf,embedding", "--rules", help="Comma-separated rules: tfidf, embedding, llm."),
    rubric: str = typer.Option("full", "--rubric", help="LLM rubric(s)."),
    lm: Optional[str] = typer.Option(None, "--lm", help="LiteLLM model for the llm rule."),
    api_base: Optional[str] = typer.Option(None, "--api-base", help="Base URL of an OpenAI-compatible server."),
    tfidf_threshold: float = typer.Option(0.25, "--tfidf-threshold"),
    embedding_threshold: float = typer.Option(0.77, "--embedding-threshold"),
    embedder: str = typer.Option("all-MiniLM-L6-v2", "--embedder"),
    out: Optional[Path] = typer.Option(None, "--out", help="Write the tables as TSV here (default: RUN_DIR/divergence)."),
    tracking_uri: Optional[str] = TrackingUri,
    no_track: bool = NoTrack,
    experiment: str = Experiment,
) -> None:
    """Run divergence, extra divergence per depth pair (exact permutation p), clusters, engagement."""
    from tribunal.cli.equiv import build_cli_lm, build_rules
    from tribunal.eval.hyp.divergence_job import CLUSTER_RULE, run_divergence

    if not (run_dir / "runs").is_dir():
        raise UserError(f"{run_dir}: no runs/ folder (write one with `tribunal hyp run`)")
    options = dict(tfidf_threshold=tfidf_threshold, embedding_threshold=embedding_threshold, embedder=embedder,
                   lm=build_cli_lm(lm, api_base, 0.0), lm_name=lm)
    rule_objs = build_rules(rules, rubric, options)
    try:
        result = run_divergence(run_dir, rule_objs, tracking_settings(tracking_uri, no_track, experiment),
                                out or run_dir / "divergence")
    except ValueError as err:
        raise UserError(str(err)) from err
    console = make_console()
    console.print(result.divergence.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    console.print(f"\nclusters ({CLUSTER_RULE}):")
    console.print(result.clusters.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    console.print("\nengagement label shares per depth:")
    console.print(result.engagement.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    console.print(f"signature: {result.signature}")

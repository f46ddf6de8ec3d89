"""``tribunal runs list|compare``: tracked runs from the command line."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from tribunal.cli.common import TrackingUri, tracking_settings
from tribunal.cli.console import console as make_console

app = typer.Typer(no_args_is_help=True)

ExperimentFilter = typer.Option(None, "--experiment", help="Only runs of this experiment (default: all).")
Filter = typer.Option("", "--filter", help="MLflow filter, e.g. \"params.strategy = 'consensus'\".")


@app.command("list")
def list_runs(
    experiment: Optional[str] = ExperimentFilter,
    filter_string: str = Filter,
    max_results: int = typer.Option(50, "--max", help="At most this many runs."),
    tracking_uri: Optional[str] = TrackingUri,
) -> None:
    """List runs, newest first, with their reproducibility signatures."""
    from tribunal.eval.meta.report import rich_table
    from tribunal.eval.tracking.runs_view import find_runs, runs_table

    runs = find_runs(tracking_settings(tracking_uri, True), experiment, filter_string, max_results)
    make_console().print(rich_table(runs_table(runs), f"{len(runs)} run(s)"))


@app.command("compare")
def compare_runs(
    run_ids: Optional[List[str]] = typer.Argument(None, help="Run ids (default: the runs matching the filters)."),
    experiment: Optional[str] = ExperimentFilter,
    filter_string: str = Filter,
    quality: Optional[str] = typer.Option(None, "--quality", help="Metric for the cost-vs-quality plot."),
    cost: str = typer.Option("lm_calls", "--cost", help="Cost metric for the plot."),
    step_metric: Optional[str] = typer.Option(None, "--step-metric", help="Metric to plot per step (debate round)."),
    out: Path = typer.Option(Path("tribunal-out/runs-compare"), "--out", help="Where plots go."),
    tracking_uri: Optional[str] = TrackingUri,
    no_track: bool = typer.Option(False, "--no-track", help="Do not log the comparison as a run."),
) -> None:
    """Runs side by side: params that differ, metrics, cost; plots logged as artifacts."""
    from tribunal.eval.meta.report import rich_table
    from tribunal.eval.tracking.mlflow_run import tracked_run
    from tribunal.eval.tracking.runs_view import (
        compare,
        cost_quality_figure,
        find_runs,
        metric_by_step_figure,
        runs_by_id,
    )

    from tribunal.eval.data.output_paths import writable_folder

    writable_folder(out, "--out")
    reader = tracking_settings(tracking_uri, False)
    runs = runs_by_id(reader, run_ids) if run_ids else find_runs(reader, experiment, filter_string)
    view = compare(runs)
    console = make_console()
    console.print(rich_table(view.runs, "runs"))
    for title, frame in (("params that differ", view.params), ("metrics", view.metrics), ("cost", view.cost)):
        if len(frame):
            console.print(rich_table(frame.reset_index(names=title.split()[0]), title))
    figures = {}
    if quality:
        figures["cost_vs_quality.png"] = cost_quality_figure(view, quality, cost)
    if step_metric:
        figures["by_step.png"] = metric_by_step_figure(reader, runs, step_metric)
    out.mkdir(parents=True, exist_ok=True)
    for name, figure in figures.items():
        figure.savefig(out / name, dpi=120)
        console.print(f"plot: {out / name}")
    settings = tracking_settings(tracking_uri, no_track, "tribunal-comparisons")
    with tracked_run(settings, "runs compare", {"runs": ",".join(view.runs.run_id)}) as run:
        for name, figure in figures.items():
            run.log_figure(figure, name)
        run.log_text(view.metrics.to_csv(sep="\t"), "metrics.tsv")
        run.log_text(view.params.to_csv(sep="\t"), "params_that_differ.tsv")
    if run.run_id:
        console.print(f"comparison logged as run {run.run_id}; {settings.ui_command()}")

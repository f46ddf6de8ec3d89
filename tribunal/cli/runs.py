"""``tribunal runs list|compare|view``: tracked runs from the command line, and their pages."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from tribunal.cli.common import TrackingUri, tracking_settings
from tribunal.cli.console import console as make_console
from tribunal.cli.console import line
from tribunal.cli.errors import UserError
from tribunal.cli.help_policy import examples


def make_terminal():
    """The console at the terminal's own width (these views wrap to any width, so no minimum)."""
    return make_console(min_width=0)

app = typer.Typer(no_args_is_help=True)

ExperimentFilter = typer.Option(None, "--experiment", help="Only runs of this experiment (default: all).")
Filter = typer.Option("", "--filter", help="MLflow filter, e.g. \"params.strategy = 'consensus'\".")


@app.command("list", epilog=examples("tribunal runs list", "tribunal runs list --experiment tribunal-demo --max 5",
                                     "tribunal runs list --filter \"params.strategy = 'consensus'\""))
def list_runs(
    experiment: Optional[str] = ExperimentFilter,
    filter_string: str = Filter,
    max_results: int = typer.Option(50, "--max", help="At most this many runs."),
    tracking_uri: Optional[str] = TrackingUri,
) -> None:
    """List tracked runs, newest first.

    One block per run: name, status, duration, key metrics and the reproducibility signature,
    wrapped to the terminal's width (nothing cut).
    """
    from tribunal.cli.runs_render import print_records  # heavy: pulls in pandas, pyarrow
    from tribunal.eval.tracking.runs_view import find_runs, runs_table  # heavy: pulls in pandas, pyarrow

    runs = find_runs(tracking_settings(tracking_uri, True), experiment, filter_string, max_results)
    table = runs_table(runs)
    table.insert(0, "#", [str(i) for i in range(1, len(runs) + 1)])
    print_records(make_terminal(), table, f"{len(runs)} run(s), newest first", heading=("#", "name"))


@app.command("compare", epilog=examples("tribunal runs compare RUN_ID_1 RUN_ID_2",
                                        "tribunal runs compare --experiment tribunal --quality meta.seg_acc_t"))
def compare_runs(
    run_ids: Optional[List[str]] = typer.Argument(None, help="Run ids (default: the runs matching the filters)."),
    experiment: Optional[str] = ExperimentFilter,
    filter_string: str = Filter,
    quality: Optional[str] = typer.Option(None, "--quality", help="Metric for the cost-vs-quality plot (default: the first key metric all runs have)."),
    cost: str = typer.Option("lm_calls", "--cost", help="Cost metric for the plot."),
    step_metric: Optional[str] = typer.Option(None, "--step-metric", help="Metric to plot per step (default: every metric logged per step, e.g. debate rounds)."),
    out: Path = typer.Option(Path("tribunal-out/runs-compare"), "--out", metavar="DIR", help="Where plots go."),
    tracking_uri: Optional[str] = TrackingUri,
    no_track: bool = typer.Option(False, "--no-track", help="Do not log the comparison as a run."),
    labels: Optional[List[str]] = typer.Option(None, "--label", help="Names of the two runs on the side-by-side "
                                                                    "page, in order (default: their run names)."),
) -> None:
    """Compare tracked runs side by side.

    Params that differ, metrics (key ones first) and cost, then plots (key metrics, cost against
    quality, metrics per step) saved to --out and logged as a run of tribunal-comparisons. Two runs
    of `mt evaluate`: also the page of both, item by item, where they differ most first
    (OUT/compare.html, logged to the comparison run; `tribunal runs view` opens it).
    """
    from tribunal.cli.runs_render import print_records, print_side_by_side  # heavy: pulls in pandas, pyarrow
    from tribunal.data.output_paths import writable_folder  # startup: kept out of `tribunal --help`
    from tribunal.eval.tracking.runs_view import compare, find_runs, runs_by_id  # heavy: pulls in pandas, pyarrow

    writable_folder(out, "--out")
    reader = tracking_settings(tracking_uri, False)
    runs = runs_by_id(reader, run_ids) if run_ids else find_runs(reader, experiment, filter_string)
    view = compare(runs)
    console = make_terminal()
    print_records(console, view.runs, "runs compared")
    for title, frame, label in (("params that differ", view.params, "param"), ("metrics", view.metrics, "metric"),
                                ("cost", view.cost, "metric")):
        print_side_by_side(console, frame, title, label)
    figures = _comparison_figures(console, reader, runs, view, quality, cost, step_metric)
    out.mkdir(parents=True, exist_ok=True)
    for name, figure in figures.items():
        figure.savefig(out / name, dpi=120)
        line(console, f"plot: {out / name}")
    page = _compare_page(console, reader, runs, out, labels)
    _log_comparison(console, tracking_settings(tracking_uri, no_track, "tribunal-comparisons"), view, figures, page)


def _comparison_figures(console, reader, runs: list, view, quality: Optional[str], cost: str,
                        step_metric: Optional[str]) -> dict:
    """The plots by file name: key metrics, cost against ``quality`` (default: the first key metric all runs
    have) and each metric per step; a plot the runs cannot make is one dim line instead."""
    from tribunal.eval.tracking.runs_view import (
        cost_quality_figure,
        default_quality,
        key_metrics_figure,
        metric_by_step_figure,
        stepped_metrics,
    )  # heavy: pulls in pandas, pyarrow

    figures = {"key_metrics.png": key_metrics_figure(view)}
    if figures["key_metrics.png"] is None:
        figures.clear()
        console.print("[dim]no key-metrics plot: the runs share no metric[/dim]")
    quality = quality or default_quality(view)
    if quality and cost in view.metrics.index:
        figures["cost_vs_quality.png"] = cost_quality_figure(view, quality, cost)
    else:
        console.print(f"[dim]no cost-vs-quality plot: the runs share no {'quality metric' if not quality else cost}[/dim]")
    for metric in [step_metric] if step_metric else stepped_metrics(reader, runs):
        figures[f"by_step_{metric.replace('/', '_')}.png"] = metric_by_step_figure(reader, runs, metric)
    return figures


def _log_comparison(console, settings, view, figures: dict, page: Optional[Path]) -> None:
    """The comparison as a run of tribunal-comparisons: its plots, the page, the metrics and differing params."""
    from tribunal.eval.tracking.mlflow_run import tracked_run  # heavy: pulls in pydantic

    with tracked_run(settings, "runs compare", {"runs": ",".join(view.runs.run_id)}) as run:
        for name, figure in figures.items():
            run.log_figure(figure, name)
        if page is not None:
            run.log_artifact(page)
        run.log_text(view.metrics.to_csv(sep="\t"), "metrics.tsv")
        run.log_text(view.params.to_csv(sep="\t"), "params_that_differ.tsv")
    if run.run_id:
        line(console, f"comparison logged as run {run.run_id}; {settings.ui_command()}")


def _compare_page(console, reader, runs: list, out: Path, labels: Optional[List[str]]) -> Optional[Path]:
    """OUT/compare.html of two runs that logged their pages; None (and why, in one line) otherwise."""
    from tribunal.eval.report.run_page import COMPARE_FILE, write_compare_page  # heavy: pulls in numpy
    from tribunal.eval.tracking.run_pages import download_page  # heavy: mlflow

    if len(runs) != 2:
        console.print(f"[dim]no side-by-side page: it shows two runs ({len(runs)} compared)[/dim]")
        return None
    if labels is not None and len(labels) != 2:
        raise UserError(f"--label: two names, one per run ({len(labels)} given)")
    pages = [download_page(reader, run.info.run_id, out / "pages" / run.info.run_id) for run in runs]
    missing = [run.info.run_id for run, page in zip(runs, pages) if page is None or page.name != "report.html"]
    if missing:
        console.print(f"[dim]no side-by-side page: run {missing[0]} logged no report.html (not an mt evaluate "
                      "run, or one from before run pages)[/dim]")
        return None
    names = [run.info.run_name or f"run {i}" for i, run in enumerate(runs, 1)]
    chosen = tuple(labels) if labels else (tuple(names) if names[0] != names[1] else ("run 1", "run 2"))
    page = write_compare_page(out / COMPARE_FILE, pages[0], pages[1], chosen)
    line(console, f"page: {page}")
    return page


@app.command("view", epilog=examples("tribunal runs view tribunal-out/mmad", "tribunal runs view RUN_ID --serve",
                                     "tribunal runs view tribunal-out/runs-compare/compare.html"))
def view_run(
    run: str = typer.Argument(..., metavar="RUN_OR_FOLDER", help="An output folder (or its report.html / "
                                                                 "compare.html), or an MLflow run id."),
    serve: bool = typer.Option(False, "--serve", help="Serve the page on 127.0.0.1 until Ctrl-C."),
    port: int = typer.Option(0, "--port", min=0, max=65535, help="The port for --serve (0: any free port)."),
    out: Path = typer.Option(Path("tribunal-out/runs-view"), "--out", metavar="DIR",
                             help="Where a run's page fetched from MLflow goes."),
    tracking_uri: Optional[str] = TrackingUri,
) -> None:
    """Open a run's page (its path, or served on 127.0.0.1).

    Prints the page's path; --serve serves it on 127.0.0.1 until Ctrl-C. The page of an `mt evaluate` run is report.html in its output folder (and in the run's MLflow
    artifacts); the page of `runs compare` of two runs is compare.html. Given a run id, the page is
    fetched from the run's artifacts into --out.
    """
    page = _find_page(run, out, tracking_uri)
    console = make_terminal()
    if not serve:
        console.print(str(page), soft_wrap=True)
        return
    from tribunal.cli.page_server import serve_page  # startup: kept out of `tribunal --help`

    serve_page(page, port, lambda url: line(console, f"serving {page} at {url} (Ctrl-C stops)"))


def _find_page(run: str, out: Path, tracking_uri: Optional[str]) -> Path:
    from tribunal.eval.report.run_page import COMPARE_FILE, PAGE_FILE  # heavy: pulls in numpy

    path = Path(run)
    if path.is_file():
        return path
    if path.is_dir():
        for name in (PAGE_FILE, COMPARE_FILE):
            if (path / name).is_file():
                return path / name
        raise UserError(f"{path}: no {PAGE_FILE} or {COMPARE_FILE} (mt evaluate writes one in its --out folder)")
    if any(sep in run for sep in ("/", "\\")) or not run.isalnum():
        raise UserError(f"{run}: no such folder or file")
    from tribunal.eval.tracking.run_pages import download_page  # heavy: mlflow
    from tribunal.eval.tracking.runs_view import runs_by_id  # heavy: pulls in pandas, pyarrow

    reader = tracking_settings(tracking_uri, False)
    runs_by_id(reader, [run])  # an unknown run id: one line naming the store
    page = download_page(reader, run, out / run)
    if page is None:
        raise UserError(f"run {run} logged no page (report.html: mt evaluate runs; compare.html: runs compare)")
    return page

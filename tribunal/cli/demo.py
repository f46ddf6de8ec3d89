"""``tribunal demo``: run what the data and configuration allow, end to end."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from tribunal.cli.console import console as make_console
from tribunal.cli.common import NoTrack, TrackingUri, data_root, tracking_settings


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)


def demo(
    data: Optional[Path] = typer.Option(None, "--data", help="A wmt23-style folder (default: $TRIBUNAL_DATA/wmt23)."),
    out: Path = typer.Option(Path("tribunal-out/demo"), "--out", help="Where result files go."),
    tracking_uri: Optional[str] = TrackingUri,
    no_track: bool = NoTrack,
) -> None:
    """Meta-evaluate every shipped WMT23 metric and log the run; later steps join as they land."""
    from tribunal.eval.meta.meta_eval_job import run_meta_eval
    from tribunal.eval.meta.report import rich_table, write_tsv

    console = make_console()
    settings = tracking_settings(tracking_uri, no_track, "tribunal-demo")
    root = data_root()
    wmt23 = data or (root / "wmt23" if root else None)
    if wmt23 is None or not (wmt23 / "sources").is_dir():
        console.print("[yellow]No WMT23 data found[/yellow]: set TRIBUNAL_DATA or run `tribunal data fetch wmt23`.")
    else:
        console.rule("WMT23 meta-evaluation of the shipped metrics")
        result = run_meta_eval(wmt23, None, None, settings)
        console.print(rich_table(result.table, "WMT23 primary table"))
        write_tsv(result.table, out / "wmt23_meta_eval.tsv")
        console.print(f"table: {out / 'wmt23_meta_eval.tsv'}")
    if settings.enabled:
        console.print(f"\nRuns are in {settings.resolved_uri}; browse them with:\n  {settings.ui_command()}")

"""``tribunal export RUN --out FILE``: the tuned program an optimize run logged, verified."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from tribunal.cli.common import TrackingUri, tracking_settings
from tribunal.cli.console import console as make_console


def register(app: typer.Typer) -> None:
    app.command("export")(export)


def export(
    run_id: str = typer.Argument(..., help="The id of a `tribunal optimize` run."),
    out: Path = typer.Option(..., "--out", help="Where to write the program JSON."),
    tracking_uri: Optional[str] = TrackingUri,
) -> None:
    """Fetch program/program.json from an optimize run, verify it (seal, no secrets) and write it."""
    from tribunal.eval.data.output_paths import writable_file
    from tribunal.optimizers.run_export import export_run

    writable_file(out, "--out")
    path, document = export_run(tracking_settings(tracking_uri, False), run_id, out)
    metadata = document.get("metadata", {})
    make_console().print(f"{document['program']['name']} (optimizer {metadata.get('optimizer')}, "
                         f"dev score {metadata.get('dev_score')}) -> {path}")

"""``tribunal export RUN --out FILE``: the tuned program an optimize run logged, verified."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from tribunal.cli.common import TrackingUri, tracking_settings
from tribunal.cli.console import console as make_console
from tribunal.cli.console import line
from tribunal.cli.help_policy import examples
from tribunal.cli.numbers import number


def register(app: typer.Typer) -> None:
    app.command("export", epilog=examples("tribunal export 1a2b3c4d5e6f47a8b9c0d1e2f3a4b5c6 --out tuned.json",
                                          "tribunal mt evaluate --lp zh-en --lm openai/gpt-4o-mini --program tuned.json"))(export)


def export(
    run_id: str = typer.Argument(..., help="The id of a `tribunal optimize` run."),
    out: Path = typer.Option(..., "--out", metavar="FILE", help="Where to write the program JSON."),
    tracking_uri: Optional[str] = TrackingUri,
) -> None:
    """Write the tuned program of an optimize run to a file.

    Fetches program/program.json from the run, verifies it (seal, program, no credentials) and
    writes it to --out, ready for --program FILE in optimize, mt evaluate and equiv audit.
    """
    from tribunal.data.output_paths import writable_file  # startup: kept out of `tribunal --help`
    from tribunal.optimizers.run_export import export_run  # heavy: pulls in scipy, numpy

    writable_file(out, "--out")
    path, document = export_run(tracking_settings(tracking_uri, False), run_id, out)
    metadata = document.get("metadata", {})
    line(make_console(), f"{document['program']['name']} (optimizer {metadata.get('optimizer')}, "
                         f"dev score {number(metadata.get('dev_score'), 'not recorded')}) -> {path}")

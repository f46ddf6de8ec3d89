"""Options and helpers shared by the sub-commands."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import typer

from tribunal.cli.errors import UserError

TrackingUri = typer.Option(
    None, "--tracking-uri", help="MLflow tracking URI (default: sqlite:///mlflow.db in the working directory)."
)
NoTrack = typer.Option(False, "--no-track", help="Do not log an MLflow run (nothing is written to the tracking store).")
TraceSample = typer.Option(
    None, "--trace-sample", min=0.0, max=1.0,
    help="Share of judged items written as MLflow traces (default: $TRIBUNAL_TRACE_SAMPLE or 1; unscored items always).",
)
Experiment = typer.Option("tribunal", "--experiment", help="MLflow experiment the run is logged to.")


def tracking_settings(uri: Optional[str], no_track: bool, experiment: str = "tribunal"):
    """Build TrackingSettings from the shared options."""
    from tribunal.eval.tracking.mlflow_run import TrackingSettings  # heavy: pulls in pydantic

    return TrackingSettings(enabled=not no_track, uri=uri, experiment=experiment)


def data_root() -> Path | None:
    """The data root: ``$TRIBUNAL_DATA``, else ``~/.tribunal/data`` if it exists."""
    if os.environ.get("TRIBUNAL_DATA"):
        return Path(os.environ["TRIBUNAL_DATA"]).expanduser()
    default = Path.home() / ".tribunal" / "data"
    return default if default.is_dir() else None


def resolve_wmt23(data: Optional[Path]) -> Path:
    """The WMT23 folder: ``--data``, else ``$TRIBUNAL_DATA/wmt23``; a clear error otherwise."""
    if data is None:
        root = data_root()
        if root is None:
            raise UserError(
                "no data: pass --data DIR, set TRIBUNAL_DATA to a folder holding wmt23/, "
                "or run `tribunal data fetch wmt23`"
            )
        data = root / "wmt23"
    if not (data / "sources").is_dir():
        raise UserError(f"{data}: not a folder in the mt-metrics-eval layout (no sources/)")
    return data

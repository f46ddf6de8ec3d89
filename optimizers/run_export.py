"""Fetch the program an optimize run logged (artifact ``program/program.json``) and verify it."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from tribunal.errors import UserError
from tribunal.data.program_export import read_export, write_export
from tribunal.optimizers.optimize_export import ARTIFACT_DIR, ARTIFACT_NAME
from tribunal.eval.tracking.mlflow_run import mlflow_client


def export_run(settings: Any, run_id: str, out: str | Path) -> tuple[Path, dict[str, Any]]:
    """Download, verify with :func:`read_export`, and write to ``out``; returns ``(path, document)``."""
    from mlflow.exceptions import MlflowException  # heavy: mlflow, pandas


    client = mlflow_client(settings)
    try:
        client.get_run(run_id)
    except MlflowException:
        raise UserError(f"no run {run_id!r} in {settings.resolved_uri}") from None
    with tempfile.TemporaryDirectory() as folder:
        try:
            local = client.download_artifacts(run_id, f"{ARTIFACT_DIR}/{ARTIFACT_NAME}", folder)
        except (MlflowException, OSError):
            raise UserError(f"run {run_id} has no {ARTIFACT_DIR}/{ARTIFACT_NAME} (not an optimize run?)") from None
        document = read_export(local)
    if document.get("metadata", {}).get("run_id") not in (None, run_id):
        raise UserError(f"run {run_id}: its program.json says it came from run {document['metadata']['run_id']}")
    return write_export(document, out), document

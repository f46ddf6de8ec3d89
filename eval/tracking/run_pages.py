"""A run's page (``report.html``, or ``compare.html`` of a comparison run) fetched from its MLflow artifacts."""

from __future__ import annotations

from pathlib import Path

from tribunal.eval.tracking.mlflow_run import TrackingSettings, mlflow_client, store_errors

PAGE_ARTIFACTS = ("report.html", "compare.html")  # an mt evaluate run's page; a runs compare run's page


def download_page(settings: TrackingSettings, run_id: str, folder: Path) -> Path | None:
    """The run's page, downloaded into ``folder``; None when the run logged none."""
    client = mlflow_client(settings)
    with store_errors(settings.resolved_uri):
        logged = {a.path for a in client.list_artifacts(run_id)}
        for name in PAGE_ARTIFACTS:
            if name in logged:
                folder.mkdir(parents=True, exist_ok=True)
                return Path(client.download_artifacts(run_id, name, str(folder)))
    return None

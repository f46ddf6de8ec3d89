"""What earlier tracked runs measured: answer tokens per call of each role and seconds per call.

The latest finished run of the same program and model in the experiment (params ``program`` and
``lm``) that logged the per-role usage metrics (``role.<ROLE>.calls`` and
``role.<ROLE>.completion_tokens``, :mod:`tribunal.eval.tracking.usage_metrics`) gives each role's
average answer; its ``wall_seconds`` and ``lm_calls`` at its ``concurrency`` give the seconds of one
call. Reading never creates anything: a SQLite store that does not exist yet has no runs.
"""

from __future__ import annotations

from pathlib import Path

from tribunal.eval.estimate.estimate import Measured
from tribunal.eval.tracking.mlflow_run import TrackingSettings, mlflow_client


def _store_exists(settings: TrackingSettings) -> bool:
    uri = settings.resolved_uri
    return not uri.startswith("sqlite:///") or Path(uri[len("sqlite:///"):]).is_file()


def measured_run(settings: TrackingSettings, program: str, model: str) -> Measured | None:
    """What the latest finished tracked run of ``program`` on ``model`` measured (None: no such run)."""
    if not settings.enabled or not _store_exists(settings):
        return None
    client = mlflow_client(settings)
    experiment = client.get_experiment_by_name(settings.experiment)
    if experiment is None:
        return None
    quoted = program.replace("'", "")
    runs = client.search_runs([experiment.experiment_id],
                              f"params.program = '{quoted}' and params.lm = '{model.replace(chr(39), '')}' "
                              "and attributes.status = 'FINISHED'", order_by=["attributes.start_time DESC"],
                              max_results=20)
    for run in runs:
        metrics, params = run.data.metrics, run.data.params
        roles = {key.split(".")[1] for key in metrics if key.startswith("role.") and key.endswith(".calls")}
        per_call = {role: metrics.get(f"role.{role}.completion_tokens", 0.0) / metrics[f"role.{role}.calls"]
                    for role in roles if metrics.get(f"role.{role}.calls")}
        if not per_call:
            continue
        calls, wall = metrics.get("lm_calls") or 0, metrics.get("wall_seconds")
        concurrency = float(params.get("concurrency") or 1)
        seconds = wall * concurrency / calls if calls and wall else None
        return Measured(run.info.run_id, per_call, seconds)
    return None

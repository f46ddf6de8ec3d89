"""Reading tracked runs back: list them, and compare several side by side.

Conventions the judges' runners follow, so comparisons line up: cost metrics are named
``lm_calls`` / ``lm_tokens``; metrics logged with a ``step`` (e.g. per debate round) form curves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from tribunal.errors import UserError
from tribunal.eval.tracking.mlflow_run import TrackingSettings, mlflow_client

COST_METRICS = ("lm_calls", "lm_tokens", "wall_seconds")


@dataclass
class RunComparison:
    runs: pd.DataFrame          # one row per run: id, name, experiment, status, signature
    params: pd.DataFrame        # params that differ between the runs (rows: param, columns: run)
    metrics: pd.DataFrame       # every metric (rows: metric, columns: run)
    cost: pd.DataFrame          # the cost metrics present (rows: metric, columns: run)


def _experiment_ids(client: Any, experiment: str | None) -> list[str]:
    if experiment:
        found = client.get_experiment_by_name(experiment)
        if found is None:
            raise UserError(f"no experiment named {experiment!r} in this tracking store")
        return [found.experiment_id]
    return [e.experiment_id for e in client.search_experiments()]


def find_runs(settings: TrackingSettings, experiment: str | None = None, filter_string: str = "",
              max_results: int = 100) -> list[Any]:
    """Runs matching an MLflow filter string (e.g. ``params.strategy = 'consensus'``), newest first."""
    from mlflow.exceptions import MlflowException

    client = mlflow_client(settings)
    ids = _experiment_ids(client, experiment)
    if not ids:
        return []
    try:
        return list(client.search_runs(ids, filter_string=filter_string, max_results=max_results,
                                       order_by=["attributes.start_time DESC"]))
    except MlflowException as err:
        raise UserError(f"bad --filter {filter_string!r}: {err.message}") from None


def runs_by_id(settings: TrackingSettings, run_ids: list[str]) -> list[Any]:
    """Fetch runs by id (a unique prefix of 8+ characters is not enough for MLflow: use full ids)."""
    from mlflow.exceptions import MlflowException

    client = mlflow_client(settings)
    runs = []
    for run_id in run_ids:
        try:
            runs.append(client.get_run(run_id))
        except MlflowException:
            raise UserError(f"no run {run_id!r} in {settings.resolved_uri}") from None
    return runs


def runs_table(runs: list[Any]) -> pd.DataFrame:
    """One row per run with its identity and headline fields."""
    rows = []
    for run in runs:
        tags = run.data.tags
        rows.append({
            "run_id": run.info.run_id,
            "name": run.info.run_name,
            "status": run.info.status,
            "started": pd.Timestamp(run.info.start_time, unit="ms").strftime("%Y-%m-%d %H:%M:%S"),
            "parent": tags.get("mlflow.parentRunId", "")[:8],
            "signature": tags.get("tribunal.signature", ""),
        })
    return pd.DataFrame(rows, columns=["run_id", "name", "status", "started", "parent", "signature"])


def compare(runs: list[Any]) -> RunComparison:
    """Side-by-side view: differing params, all metrics, cost."""
    if len(runs) < 2:
        raise UserError(f"need at least two runs to compare, found {len(runs)}")
    labels = [f"{r.info.run_name or 'run'}:{r.info.run_id[:8]}" for r in runs]
    params = pd.DataFrame({label: r.data.params for label, r in zip(labels, runs)})
    differing = params[params.astype(str).nunique(axis=1, dropna=False) > 1] if len(params) else params
    metrics = pd.DataFrame({label: r.data.metrics for label, r in zip(labels, runs)}).sort_index()
    cost = metrics.loc[[m for m in metrics.index if m.split("/")[-1] in COST_METRICS]]
    return RunComparison(runs_table(runs), differing.sort_index(), metrics, cost)


def cost_quality_figure(comparison: RunComparison, quality: str, cost: str = "lm_calls"):
    """Scatter of cost against a quality metric, one labelled point per run."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(6, 4))
    for label in comparison.metrics.columns:
        x, y = comparison.metrics.get(label, {}).get(cost), comparison.metrics.get(label, {}).get(quality)
        if x is not None and y is not None and pd.notna(x) and pd.notna(y):
            axis.scatter([x], [y])
            axis.annotate(label, (x, y), fontsize=7)
    axis.set_xlabel(cost)
    axis.set_ylabel(quality)
    axis.set_title(f"{quality} vs {cost}")
    figure.tight_layout()
    return figure


def metric_by_step_figure(settings: TrackingSettings, runs: list[Any], metric: str):
    """One curve per run of a metric logged per step (e.g. agreement by debate round)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    client = mlflow_client(settings)
    figure, axis = plt.subplots(figsize=(6, 4))
    for run in runs:
        history = sorted(client.get_metric_history(run.info.run_id, metric), key=lambda m: m.step)
        if history:
            axis.plot([m.step for m in history], [m.value for m in history], marker="o",
                      label=f"{run.info.run_name}:{run.info.run_id[:8]}")
    axis.set_xlabel("step (debate round)")
    axis.set_ylabel(metric)
    axis.legend(fontsize=7)
    figure.tight_layout()
    return figure

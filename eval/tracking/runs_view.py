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
from tribunal.eval.tracking.run_names import key_metric_names, key_metric_order

COST_METRICS = ("lm_calls", "lm_tokens", "wall_seconds")
# What a user compares first, in this order (the rest follow alphabetically).
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
    from mlflow.exceptions import MlflowException  # heavy: mlflow, scipy

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
    from mlflow.exceptions import MlflowException  # heavy: mlflow, scipy

    client = mlflow_client(settings)
    runs = []
    for run_id in run_ids:
        try:
            runs.append(client.get_run(run_id))
        except MlflowException:
            raise UserError(f"no run {run_id!r} in {settings.resolved_uri}") from None
    return runs


def _duration(run: Any) -> str:
    if not run.info.end_time:
        return "running"
    seconds = (run.info.end_time - run.info.start_time) / 1000
    return f"{seconds:.1f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def _number(value: float) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def runs_table(runs: list[Any], key_metrics: int = 4) -> pd.DataFrame:
    """One row per run: identity, duration, its first key metrics, and the signature."""
    rows, keys = [], set(key_metric_order())
    for run in runs:
        tags, metrics = run.data.tags, run.data.metrics
        shown = key_metric_names([k for k in metrics if k in keys] or metrics, key_metrics)
        rows.append({
            "run_id": run.info.run_id,
            "name": run.info.run_name,
            "status": run.info.status,
            "started": pd.Timestamp(run.info.start_time, unit="ms").strftime("%Y-%m-%d %H:%M:%S"),
            "duration": _duration(run),
            "parent": tags.get("mlflow.parentRunId", "")[:8],
            "key metrics": ", ".join(f"{k} {_number(metrics[k])}" for k in shown),
            "signature": tags.get("tribunal.signature", ""),
        })
    return pd.DataFrame(rows, columns=["run_id", "name", "status", "started", "duration", "parent", "key metrics",
                                       "signature"])


def compare(runs: list[Any]) -> RunComparison:
    """Side-by-side view: differing params, all metrics, cost."""
    if len(runs) < 2:
        raise UserError(f"need at least two runs to compare, found {len(runs)}")
    labels = run_labels(runs)
    params = pd.DataFrame({label: r.data.params for label, r in zip(labels, runs)})
    differing = params[params.astype(str).nunique(axis=1, dropna=False) > 1] if len(params) else params
    metrics = pd.DataFrame({label: r.data.metrics for label, r in zip(labels, runs)})
    metrics = metrics.loc[key_metric_names(metrics.index)] if len(metrics) else metrics
    cost = metrics.loc[[m for m in metrics.index if m.split("/")[-1] in COST_METRICS]]
    table = runs_table(runs)
    table.insert(0, "run", labels)
    return RunComparison(table, differing.sort_index(), metrics, cost)


def run_labels(runs: list[Any]) -> list[str]:
    """Short column labels for side-by-side tables (``run 1`` ...; the runs table maps them to names)."""
    return [f"run {i}" for i in range(1, len(runs) + 1)]


def default_quality(comparison: RunComparison) -> str | None:
    """The first metric (key metrics first) every compared run has that is not a cost or a count."""
    complete = comparison.metrics.dropna()
    candidates = [k for k in key_metric_names(complete.index) if k.split("/")[-1] not in COST_METRICS
                  and k not in ("scored", "unscored", "items", "judged")]
    return candidates[0] if candidates else None


def stepped_metrics(settings: TrackingSettings, runs: list[Any]) -> list[str]:
    """Metrics logged at more than one step in some run (curves, e.g. debates by round)."""
    client = mlflow_client(settings)
    found = set()
    for run in runs:
        for name in run.data.metrics:
            if name not in found and len(client.get_metric_history(run.info.run_id, name)) > 1:
                found.add(name)
    return sorted(found)


def key_metrics_figure(comparison: RunComparison, limit: int = 6):
    """Bars of the key metrics every run has, one bar per run (values as logged); None if they share none."""
    import matplotlib  # heavy: matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # heavy: matplotlib

    shared = [m for m in comparison.metrics.dropna().index if m.split("/")[-1] not in COST_METRICS][:limit]
    if not shared:
        return None
    figure, axes = plt.subplots(1, max(1, len(shared)), figsize=(2.2 * max(1, len(shared)) + 1, 3.2), squeeze=False)
    for axis, metric in zip(axes[0], shared):
        values = comparison.metrics.loc[metric]
        axis.bar(range(len(values)), values.to_numpy(dtype=float), color=[f"C{i}" for i in range(len(values))])
        axis.set_xticks(range(len(values)), [c.removeprefix("run ") for c in values.index])
        axis.set_title(metric, fontsize=8)
    axes[0][0].set_xlabel("run")
    figure.tight_layout()
    return figure


def cost_quality_figure(comparison: RunComparison, quality: str, cost: str = "lm_calls"):
    """Scatter of cost against a quality metric, one labelled point per run."""
    import matplotlib  # heavy: matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # heavy: matplotlib

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
    import matplotlib  # heavy: matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # heavy: matplotlib

    client = mlflow_client(settings)
    figure, axis = plt.subplots(figsize=(6, 4))
    for run, label in zip(runs, run_labels(runs)):
        history = sorted(client.get_metric_history(run.info.run_id, metric), key=lambda m: m.step)
        if history:
            axis.plot([m.step for m in history], [m.value for m in history], marker="o", label=label)
    axis.set_title(metric)
    axis.set_xlabel("step (debate round)")
    axis.set_ylabel(metric)
    axis.legend(fontsize=7)
    figure.tight_layout()
    return figure

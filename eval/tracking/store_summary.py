"""What an experiment holds in MLflow's GenAI views: traces, datasets, prompts, assessments, runs."""

from __future__ import annotations

from typing import Any

from tribunal.eval.tracking.mlflow_run import TrackingSettings, mlflow_client


def store_summary(settings: TrackingSettings) -> dict[str, int]:
    """Counts for ``settings.experiment`` (0 everywhere when it does not exist yet)."""
    import mlflow  # heavy: mlflow, pandas

    client = mlflow_client(settings)
    experiment = client.get_experiment_by_name(settings.experiment)
    if experiment is None:
        return {"runs": 0, "traces": 0, "assessments": 0, "dataset_inputs": 0, "evaluation_datasets": 0,
                "prompts": 0, "prompt_versions": 0}
    mlflow.set_tracking_uri(settings.resolved_uri)
    traces = mlflow.search_traces(locations=[experiment.experiment_id], return_type="list", include_spans=False)
    runs = client.search_runs([experiment.experiment_id], max_results=5000)
    inputs = {(d.dataset.name, d.dataset.digest) for r in runs for d in r.inputs.dataset_inputs}
    prompts = [p for p in client.search_prompts(max_results=1000) if p.name.startswith("tribunal.")]
    versions = sum(len(client.search_prompt_versions(p.name)) for p in prompts)
    datasets = client.search_datasets(experiment_ids=[experiment.experiment_id])
    return {"runs": len(runs), "traces": len(traces), "assessments": sum(len(t.info.assessments) for t in traces),
            "dataset_inputs": len(inputs), "evaluation_datasets": len(datasets), "prompts": len(prompts),
            "prompt_versions": versions}


def summary_line(counts: dict[str, Any]) -> str:
    return ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in counts.items())

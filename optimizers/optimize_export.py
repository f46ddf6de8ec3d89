"""The end of a ``tribunal optimize`` run: the dev report and the run's metrics logged, then the chosen
program exported (``--out``, the run's artifact ``program/program.json``) and registered as an MLflow
model, a version of ``tribunal-<program>``."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from tribunal.data.program_export import export_document, write_export
from tribunal.eval.mt.run_summary import cap_status
from tribunal.optimizers.dev_report import objective_report
from tribunal.optimizers.judge_model_log import log_judge_model
from tribunal.optimizers.optimize_search import TuningOutcome
from tribunal.optimizers.optimize_setup import OptimizeSetup
from tribunal.optimizers.optimize_summary import optimize_usage_metrics

ARTIFACT_DIR, ARTIFACT_NAME = "program", "program.json"


def log_outcome(setup: OptimizeSetup, outcome: TuningOutcome, run: Any, counter: Any, cap: Any) -> dict[str, Any]:
    """Log the dev report (``dev/objective.json``), the compiled program as the trial of a single-candidate
    optimizer, what the cap spent and the run's improvement and usage metrics; returns the report."""
    from tribunal.optimizers.trials import candidate_summary  # heavy: pulls in dspy

    untuned, tuned, scores, trials = outcome.untuned, outcome.tuned, outcome.scores, outcome.trials
    report = objective_report(setup.objective.name, scores, outcome.selection, {"untuned": untuned, "tuned": tuned},
                              outcome.rejected_reason)
    run.log_text(json.dumps(report, indent=2) + "\n", "dev/objective.json")
    run.set_tags({"tribunal.objective": setup.objective.name})
    if not trials.trials:  # single-candidate optimizers: the compiled program is the trial
        trials.log(candidate_summary(outcome.candidate), (outcome.rejected or tuned).score, len(setup.dev.examples),
                   source="compiled")
    if cap is not None:
        run.log_metrics({"cap.spent_usd": cap.spent, "cap.calls_sent": float(cap.sent)})
        if outcome.stopped:
            run.set_tags({"tribunal.stopped_by": outcome.stopped})
    run.log_metrics({"dev_improvement": tuned.score - untuned.score,
                     "dev_objective_improvement": scores["tuned"].objective.value
                     - scores["untuned"].objective.value, "trials": float(len(trials.trials)),
                     "optimizer_metric_calls": float(setup.metric.calls),
                     "optimizer_unscored": float(setup.metric.unscored_count), **counter.metrics(),
                     **optimize_usage_metrics(counter.summary(), setup.lms.models)})
    return report


def export_metadata(setup: OptimizeSetup, outcome: TuningOutcome, run: Any, sig: str, report: dict[str, Any],
                    status: Any) -> dict[str, Any]:
    """The export's metadata: optimizer and budget, dev scores and objective report, data, run and cap."""
    untuned, tuned, scores, train, dev = outcome.untuned, outcome.tuned, outcome.scores, setup.train, setup.dev
    return {"optimizer": setup.spec.name, "budget": setup.budget, "knobs": setup.configured.knobs,
            "metric": setup.metric.name, "objective": setup.objective.name,
            "dev_objective": scores["tuned"].objective.value,
            "dev_objective_untuned": scores["untuned"].objective.value, "dev_objective_report": report,
            "dev_score": tuned.score, "dev_score_untuned": untuned.score, "dev_unscored": tuned.unscored,
            "dev_degraded": tuned.degraded, "dev_unscored_untuned": untuned.unscored,
            "dev_data": dev.label, "train_data": train.label, "train_data_hash": train.hash,
            "seed": setup.request.seed, "run_id": run.run_id, "signature": sig, "stopped_by": outcome.stopped,
            "best_trial_score": outcome.best.score if outcome.best is not None else None,
            "cap": status.model_dump() if status is not None else None,
            "lms": {k: v for k, v in (setup.lms.models or {}).items() if v}}


def export_tuned(setup: OptimizeSetup, outcome: TuningOutcome, run: Any, sig: str, report: dict[str, Any],
                 cap: Any) -> tuple[Any, Any]:
    """Write the chosen program's export to ``--out`` and as the run's artifact, register it as an MLflow
    model and log its prompts; returns ``(the logged model, the cap's status)``."""
    from tribunal.optimizers.optimize_run import log_tuned_prompts  # heavy: pulls in pandas, pyarrow

    status = cap_status(cap, 1 if outcome.stopped else 0)  # left: the optimizer's own search, cut short
    metadata = export_metadata(setup, outcome, run, sig, report, status)
    document = export_document(outcome.compiled, setup.resolved.name, setup.resolved.config, metadata)
    write_export(document, setup.out)
    with tempfile.TemporaryDirectory() as folder:
        artifact = write_export(document, Path(folder) / ARTIFACT_NAME)
        run.log_artifact(artifact, ARTIFACT_DIR)
        # The tuned judge as an MLflow model (from code, the export as its artifact), a version of tribunal-<program>.
        model = log_judge_model(run, artifact, document, setup.train.kind,
                                {"format": document["format"], "sha256": document["sha256"],
                                 "dev_score": outcome.tuned.score, "objective": setup.objective.name,
                                 "dev_objective": outcome.scores["tuned"].objective.value})
    log_tuned_prompts(run, outcome.compiled, setup.resolved.name, document)
    return model, status

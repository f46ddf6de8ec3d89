"""What an MT run logs to its (already open) MLflow run: parameters, metrics, output files, the score
distribution against the human one, debates by round, the human ceiling, and the description."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tribunal.eval.mt.config import EvaluateConfig
from tribunal.eval.mt.evaluation_result import EvaluationResult
from tribunal.eval.tracking.names import slug
from tribunal.eval.tracking.run_names import DESCRIPTION_TAG, description, key_metric_order, key_metrics
from tribunal.eval.tracking.usage_metrics import usage_metrics
from tribunal.runner.meter import add_summaries

OUTPUT_FILES = ("seg", "sys", "degraded", "errors", "transcripts", "samples")
"""The paths of an :class:`EvaluationResult` logged as the run's ``outputs`` artifacts, when written."""


def track_run(run: Any, config: EvaluateConfig, result: EvaluationResult, journal: Path,
              tracked: dict[str, float] | None = None) -> str | None:
    """Params, metrics, outputs and the description of the (already open) run.

    Tracking off (a :class:`~tribunal.eval.tracking.mlflow_run.NullRun`): nothing is computed, as
    nothing would be logged (the distribution comparison alone imports scipy.stats and took a
    fifth of a short run's CPU).
    """
    if run.run_id is None:
        return None
    metrics = run_metrics(config, result) | (tracked or {})
    run.log_params(run_params(config, result))
    run.log_metrics(metrics)
    _log_outputs(run, result, journal)
    _log_analysis(run, result)
    if result.ceiling is not None:
        from tribunal.eval.mt.ceiling import log_ceiling  # heavy: pulls in numpy

        log_ceiling(run, result.ceiling)
    shown = key_metrics(metrics, key_metric_order())
    run.set_tags({DESCRIPTION_TAG: description(f"{config.metric_name} on {config.lp}", result.signature, shown,
                                               [f"outputs: {result.paths['seg'].parent.parent.parent}"])})
    return run.run_id


def run_params(config: EvaluateConfig, result: EvaluationResult) -> dict[str, Any]:
    """The run's parameters: the job's options, the judge's settings (as its settings model names them), the LMs."""
    params = {"program": config.program, "lp": config.lp, "metric_name": config.metric_name,
              "lm": config.lm.model, "api_base": config.lm.api_base, "cache": config.lm.cache, "reasks": config.lm.reasks,
              "systems": len(config.systems or []) or "scored",
              "limit": config.limit, "rated_only": config.rated_only, "concurrency": config.concurrency,
              "processes": config.processes,
              "fan_out": config.fan_out, "strict": config.strict, "degraded": config.degraded,
              "demos": config.demo_count, "signature": result.signature,
              "program_export": config.program_sha256[:12] if config.program_sha256 else None}
    settings, declared = config.program_settings(), config.judge.settings
    if settings is not None and declared is not None:  # as its settings model names them (e.g. mmad.strategy)
        params |= settings.tracked_params(declared.section)
    params |= {"reference": config.segment.reference or "none", "context": config.segment.context,
               "samples": config.sampling.samples, "combine": config.sampling.combine if config.sampling.used else None,
               "temperature": config.lm.temperature}
    return params | {f"lm.{role}": own.label() for role, own in config.role_lms.items()}


def run_metrics(config: EvaluateConfig, result: EvaluationResult) -> dict[str, float]:
    """The run's metrics: the summary's numbers and counts by kind, the meta-evaluation, spans, usage and spend."""
    from tribunal.eval.mt.error_free import error_free_metrics  # heavy: pulls in numpy

    summary = result.summary
    metrics = {k: float(v) for k, v in summary.items() if isinstance(v, (int, float))}
    metrics |= {f"calls.{k}": float(v) for k, v in summary["lm_calls_by_stage"].items()}
    metrics |= {f"calls.{k}": float(v) for k, v in summary["lm_calls_by_role"].items()}
    metrics |= {f"tokens.{k}": float(v) for k, v in summary["tokens_by_stage"].items()}
    metrics |= {f"unscored.{slug(k)}": float(v) for k, v in summary["unscored_reasons"].items()}
    metrics |= {f"reasks.{k}": float(v) for k, v in summary.get("lm_reasks_by_kind", {}).items()}
    metrics |= {f"runaways.{k}": float(v) for k, v in summary.get("lm_runaways_by_role", {}).items()}
    metrics |= {f"degraded.{slug(k)}": float(v) for k, v in summary.get("degraded_by_role", {}).items()}
    metrics |= {f"spans.{k}": float(v) for k, v in summary.get("spans", {}).items()}
    metrics["system_scores_written"] = float(summary["system_scores_gap"] is None)
    metrics |= {f"meta.{k}": v for k, v in result.meta.items()} | {f"span.{k}": v for k, v in result.spans.items()}
    metrics |= error_free_metrics(summary.get("error_free"))
    metrics |= _numbers("batch", summary.get("batch")) | _numbers("samples", summary.get("sampling"))
    return metrics | usage_metrics(add_summaries([r.usage for r in result.results.values()]), config.lm.model,
                                   {role: own.model for role, own in config.role_lms.items()}, config.batch.enabled)


def _numbers(prefix: str, block: dict | None) -> dict[str, float]:
    """``prefix.<key>`` for the numbers of a summary block (its flags and texts left out)."""
    return {f"{prefix}.{k}": float(v) for k, v in (block or {}).items()
            if isinstance(v, (int, float)) and not isinstance(v, bool)}


def _log_outputs(run: Any, result: EvaluationResult, journal: Path) -> None:
    """summary.json, the output files and the journal, and the page at the top of the run's artifacts."""
    run.log_text(result.paths["summary"].read_text(encoding="utf-8"), "summary.json")
    for key in OUTPUT_FILES:
        if key in result.paths:  # no .sys.score for a partial run
            run.log_artifact(result.paths[key], "outputs")
    if journal.exists():  # none when the run had no item to judge
        run.log_artifact(journal, "outputs")
    if "report" in result.paths:
        run.log_artifact(result.paths["report"])  # at the top: MLflow's artifact viewer shows the page in the run


def _log_analysis(run: Any, result: EvaluationResult) -> None:
    """Score distribution against the human one (table and plot) and debates by round (steps)."""
    judge, human = result.scores
    if len(judge) >= 2:
        from tribunal.eval.meta.distribution import compare_distributions, distribution_figure  # heavy: pulls in pandas, pyarrow

        comparison = compare_distributions(judge, human)
        run.log_text(comparison.summary.to_csv(sep="\t"), "distribution.tsv")
        run.log_metrics({"distribution.wasserstein": comparison.wasserstein, "distribution.ks": comparison.ks_statistic})
        run.log_figure(distribution_figure(judge, human, f"{result.summary.get('items', '')} items: judge vs human MQM"),
                       "distribution.png")
        from tribunal.eval.meta.scatter_plot import judge_human_scatter  # heavy: pulls in numpy

        run.log_figure(judge_human_scatter(judge, human, "judge vs human MQM, per rated cell"), "judge_vs_human.png")
    for round_, stats in sorted(result.debates.items()):
        run.log_metrics({f"debate.{k}": v for k, v in stats.items()}, step=round_)

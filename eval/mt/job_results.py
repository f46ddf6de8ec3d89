"""What a judged MT run makes of its journal: the score files, the meta-evaluation against the human
scores, the run's summary (with the human ceiling and the error-free figures when the data allows them),
its page and ``summary.json``."""

from __future__ import annotations

from typing import Any

from tribunal.data.run_summary_file import summary_path, write_run_summary
from tribunal.eval.mt.config import EvaluateConfig
from tribunal.eval.mt.ensemble_report import sampling_summary, write_samples_table
from tribunal.eval.mt.evaluation_result import EvaluationResult
from tribunal.eval.mt.job_judging import JudgingOutcome
from tribunal.eval.mt.job_plan import JobPlan
from tribunal.eval.mt.run_summary import mt_run_summary


def evaluate_job(config: EvaluateConfig, plan: JobPlan, judged: JudgingOutcome, cap: Any,
                 run_id: str | None) -> EvaluationResult:
    """Write the outputs of the judged items, meta-evaluate the covered cells, summarise, write the page."""
    from tribunal.eval.mt.outputs import counted, segment_scores, write_outputs  # heavy: pulls in numpy
    from tribunal.eval.mt.analysis import covered_scores, debate_rounds  # heavy: pulls in numpy
    from tribunal.eval.mt.report import meta_evaluation, span_evaluation  # heavy: pulls in numpy

    pair, items, out = plan.pair, plan.items, config.output_dir
    results = {k: plan.journal.results[k] for k in items.items if k in plan.journal.results}
    outputs = {s: pair.system_output(s) for s in items.systems}
    exclude = config.degraded == "exclude"
    paths = write_outputs(out, config.lp, config.metric_name, items, results, pair.sources, outputs,
                          config.segment.reference, exclude_degraded=exclude)
    scored = counted(results, exclude)  # what the statistics see
    seg = segment_scores(items, scored, pair.n_segments)
    meta = meta_evaluation(pair, items, seg)
    spans = span_evaluation(pair, items, scored) if _marks_spans(config) else {}
    summary = _summary(config, plan, judged, results)
    if config.sampling.used:
        paths["samples"] = write_samples_table(out / "samples.tsv", items, results)
    # A score not on MQM's scale (GEMBA-ESA: 0-100) has no distribution against the human MQM.
    scores = covered_scores(pair, seg) if config.judge.scale == "mqm" else ((), ())
    ceiling = _human_figures(config, plan, seg, scored, summary)
    result = EvaluationResult(summary, meta, spans, plan.run_signature, paths, results=results, scores=scores,
                              debates=debate_rounds(results, _debate_rounds(config)), ceiling=ceiling)
    _write_page_and_summary(config, plan, result, cap, run_id)
    return result


def _summary(config: EvaluateConfig, plan: JobPlan, judged: JudgingOutcome, results: dict) -> dict[str, Any]:
    """The run's summary: items, calls, spend and time, the second pass, the batches and the samples."""
    from tribunal.eval.mt.outputs import system_level_gap  # heavy: pulls in numpy
    from tribunal.eval.mt.analysis import debate_summary  # heavy: pulls in numpy
    from tribunal.eval.mt.report import run_summary  # heavy: pulls in numpy

    summary = run_summary(plan.items, results, judged.wall)
    summary["degraded_excluded"] = config.degraded == "exclude"
    summary["debate"] = debate_summary(results)
    summary["resumed_items"] = plan.resumed
    summary["second_pass"] = judged.second.summary()
    summary["setup_seconds"] = judged.started - plan.setup_started
    summary["system_scores_gap"] = system_level_gap(plan.items, results)
    if judged.batch_stats is not None:
        summary["batch"] = judged.batch_stats
    if config.sampling.used:
        summary["sampling"] = sampling_summary(config.sampling, results)
    return summary


def _human_figures(config: EvaluateConfig, plan: JobPlan, seg: dict, scored: dict, summary: dict[str, Any]) -> Any:
    """Into ``summary``: the agreement between several raters on the judged cells (returned: its tables are
    logged) and the error-free figures, each when the data has what it needs."""
    from tribunal.eval.mt.ceiling import ceiling_summary, run_ceiling  # heavy: pulls in numpy
    from tribunal.eval.mt.error_free import run_error_free  # heavy: pulls in numpy

    ceiling = run_ceiling(plan.pair, seg, config.metric_name, config.judge.scale)
    if ceiling is not None:
        summary["human_ceiling"] = ceiling_summary(ceiling)
    error_free = run_error_free(plan.pair, plan.items, scored, config.judge.scale)
    if error_free is not None:
        summary["error_free"] = error_free
    return ceiling


def _write_page_and_summary(config: EvaluateConfig, plan: JobPlan, result: EvaluationResult, cap: Any,
                            run_id: str | None) -> None:
    """``report.html`` (a full disk costs the page, not the run) and ``summary.json``, both from the typed summary."""
    from tribunal.eval.report.run_page import PAGE_FILE, write_run_page  # heavy: pulls in numpy

    out, paths = config.output_dir, result.paths
    paths["report"] = out / PAGE_FILE  # named in summary.json; the page is drawn from the same summary
    result.run_summary = mt_run_summary(result, cap, run_id)
    try:
        write_run_page(out, result.run_summary, plan.items, result.results, plan.pair, config.judge.scale)
    except OSError as err:  # a view of what is written: a full disk costs the page (atomic: no part left), not the run
        del paths["report"]
        result.page_error = result.summary["page_error"] = err.strerror or str(err)
        result.run_summary = mt_run_summary(result, cap, run_id)
    paths["summary"] = write_run_summary(summary_path(out), result.run_summary)


def _marks_spans(config: EvaluateConfig) -> bool:
    """Whether the program outputs error spans (EAPrompt counts errors; ESA without its span step scores)."""
    return config.judge.spans_marked(config.program_settings())


def _debate_rounds(config: EvaluateConfig) -> int:
    """The most rounds a debate of the run's judge holds (0 for a judge without debates)."""
    settings = config.program_settings()
    return settings.debate_rounds() if settings is not None else 0

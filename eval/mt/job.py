"""One MT judge run end to end: select items, judge the unfinished ones, write, evaluate, track."""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from tribunal.errors import Interrupted, UserError
from tribunal.data.run_summary_file import summary_path, write_run_summary
from tribunal.eval.mt.run_summary import mt_run_summary
from tribunal.eval.mt.config import EvaluateConfig
from tribunal.eval.tracking.mlflow_run import TrackingSettings
from tribunal.data.folder_lock import folder_lock
from tribunal.data.output_paths import writable_folder
from tribunal.eval.mt.ensemble_report import sampling_summary, write_samples_table
from tribunal.eval.mt.journal import Journal, JournalWriteError, journal_path
from tribunal.eval.mt.async_judging import RUNNERS
from tribunal.eval.mt.second_pass import SecondPass, run_second_pass
from tribunal.eval.tracking.mlflow_run import check_store
from tribunal.eval.tracking.mt_run import open_mt_run
from tribunal.eval.tracking.names import slug
from tribunal.eval.tracking.run_names import DESCRIPTION_TAG, description, key_metric_order, key_metrics
from tribunal.eval.tracking.signature import text_hash
from tribunal.eval.tracking.usage_metrics import usage_metrics
from tribunal.runner.meter import add_summaries
from tribunal.programs.mqm.demos import LANGUAGES
from tribunal.eval.mt.judge_builder import program_factory
from tribunal.programs.server_lost import LocalServerLost
from tribunal.runner.connections import server_bound
from tribunal.eval.mt.batch.runner import judge_in_batches


@dataclass
class EvaluationResult:
    summary: dict[str, Any]
    meta: dict[str, float]
    spans: dict[str, float]
    signature: str
    paths: dict[str, Path]
    run_id: str | None = None
    results: dict = field(default_factory=dict)
    scores: tuple = ((), ())  # (judge, human) MQM of the covered rated cells
    debates: dict = field(default_factory=dict)  # per-round debate statistics
    ceiling: Any = None  # agreement with several raters on the judged cells (eval.mt.ceiling), when the data has them
    run_summary: Any = None  # the typed summary (tribunal.core.run_summary.RunSummary), as summary.json holds it
    page_error: str | None = None  # why report.html could not be written (e.g. a full disk), when it was not


def _marks_spans(config: EvaluateConfig) -> bool:
    """Whether the program outputs error spans (EAPrompt counts errors; ESA without its span step scores)."""
    return config.judge.spans_marked(config.program_settings())


def _out_locked(run: Callable[..., EvaluationResult]) -> Callable[..., EvaluationResult]:
    """Check ``--out`` and the tracking store before any work, and hold ``--out``'s lock for the run.

    A read-only folder or an unusable store fails before the first LM call; a second run on the
    same folder gets :class:`~tribunal.errors.FolderBusy` instead of judging everything again.
    """

    @functools.wraps(run)
    def locked(config: EvaluateConfig, tracking: TrackingSettings, *args: Any, **kwargs: Any) -> EvaluationResult:
        writable_folder(config.output_dir, "--out")
        check_store(tracking)
        with folder_lock(config.output_dir):
            return run(config, tracking, *args, **kwargs)

    return locked


@_out_locked
def run_evaluation(config: EvaluateConfig, tracking: TrackingSettings, engine: Any = None,
                   progress: Callable[[int, int], Any] | None = None,
                   trace_sample: float | None = None, cap: Any = None) -> EvaluationResult:
    """Judge, write the outputs, meta-evaluate the covered cells and log the run.

    ``cap`` (a :class:`~tribunal.runner.spending_cap.SpendingCap`): the run stops admitting items
    before its calls could pass ``--max-cost`` / ``--max-calls``; the items it left are judged by a
    rerun (``summary.json`` and :attr:`EvaluationResult.run_summary` say so).

    ``progress(done, total)`` is called after each item; ``engine`` replaces the HTTP engine (tests).
    Ctrl-C ends the run with :class:`~tribunal.errors.Interrupted` once the items in flight are
    journaled; a full disk with a :class:`JournalWriteError` that says how many items are kept.
    Neither writes a result file.
    The MLflow run is opened before the work and gets a trace per judged item as it lands
    (``trace_sample``: see :mod:`tribunal.eval.tracking.traces`).
    """
    from tribunal.data.mtme import LanguagePair  # heavy: pulls in numpy
    from tribunal.data.score_cache import ScoreCache  # heavy: pulls in numpy
    from tribunal.eval.mt.items import select_items  # heavy: pulls in numpy
    from tribunal.eval.mt.outputs import counted, segment_scores, system_level_gap, write_outputs  # heavy: pulls in numpy
    from tribunal.eval.mt.analysis import covered_scores, debate_rounds, debate_summary  # heavy: pulls in numpy
    from tribunal.eval.mt.report import meta_evaluation, run_summary, span_evaluation  # heavy: pulls in numpy
    from tribunal.eval.report.run_page import PAGE_FILE, write_run_page  # heavy: pulls in numpy

    if config.data is None:
        raise ValueError("no data folder given")
    if cap is not None and cap.active:
        check_cap(config, cap)
    if config.judge.together:
        check_together(config)
    setup_started = time.perf_counter()
    pair = LanguagePair(config.data, config.lp, cache=ScoreCache.default())  # score and rating files parsed once
    items = select_items(pair, config.systems, config.rated_only, config.limit, config.segment)
    config_sig = config.config_signature()
    out = config.output_dir
    journal = Journal(journal_path(out, config_sig), config_sig)
    pending = [i for i in items.items.values() if not journal.done(i.key, config.retry_unscored)]
    src, _, tgt = config.lp.partition("-")
    languages = {"source_lang": LANGUAGES.get(src, src), "target_lang": LANGUAGES.get(tgt, tgt)}
    total, done = len(items.items), len(items.items) - len(pending)
    counter = {"done": done}
    slice_hash = text_hash("\n".join(sorted(items.items)))
    left_out = "exclude" if config.degraded == "exclude" else None  # changes the table, not the judgments
    run_sig = str(config.signature(data=f"{Path(config.data).name}/{config.lp}@{slice_hash}", degraded=left_out))

    with open_mt_run(tracking, config, items, pair, languages, run_sig, trace_sample) as tracker:
        tracker.start(slice_hash, lambda: program_factory(config, engine)())

        def landed(result: Any) -> None:
            counter["done"] = min(total, counter["done"] + 1)  # an item the second pass judges lands twice
            tracker.landed(result)
            if progress:
                progress(counter["done"], total)

        if progress:
            progress(done, total)
        clock = {"start": time.perf_counter()}

        def start_clock() -> None:  # judging only: data, demos and worker start-up are not LM work
            clock["start"] = time.perf_counter()

        batch_stats, second = None, SecondPass()
        try:
            if pending and config.batch.enabled:
                batch_stats = judge_in_batches(config, pending, languages, journal, landed, start_clock)
            elif pending and config.processes > 1 and engine is None:
                from tribunal.eval.mt.processes import judge_in_processes  # read when called: tests patch it

                program_factory(config)  # bad settings or data fail here, with their own message, before any worker
                bound = server_bound(config.lm, config.role_lms, config.concurrency)  # servers known once LMs are built

                def judge_split(chosen: list[Any], into: Any, ready: Any = None) -> None:
                    judge_in_processes(config.model_copy(update={"concurrency": bound}), chosen, languages, into,
                                       landed, ready)

                judge_split(pending, journal, start_clock)  # the clock starts once, when the workers are ready
                if config.lm.reasks > 0:
                    second = run_second_pass(pending, journal, judge_split)
            elif pending:
                make_program = program_factory(config, engine, cap)
                start_clock()

                judge_items = RUNNERS[config.judging]

                def judge(chosen: list[Any], into: Any) -> None:
                    judge_items(make_program, chosen, languages, into,
                              server_bound(config.lm, config.role_lms, config.concurrency), landed,
                              fan_out=config.fan_out, sampling=config.sampling, cap=cap,
                              together=config.judge.together)

                judge(pending, journal)
                if config.lm.reasks > 0 and not (cap is not None and cap.stopped_by):
                    second = run_second_pass(pending, journal, judge)
        except (KeyboardInterrupt, JournalWriteError, LocalServerLost) as err:  # counted once the items in flight landed
            kept = sum(key in journal.results for key in items.items)
            if isinstance(err, LocalServerLost):  # a rerun as it is would crash the same server again
                raise err.kept(f"{kept} of {total} items are journaled in {journal.path}; with this --out a run "
                               "resumes from them once the server runs, e.g. after `tribunal local install`, or "
                               "with another --lm") from None
            if isinstance(err, KeyboardInterrupt):
                raise Interrupted(f"interrupted: {kept} items journaled; rerun the same command to resume") from None
            raise JournalWriteError(f"{err} ({kept} items journaled; free space, then rerun the same command "
                                    "to resume)") from None
        wall = time.perf_counter() - clock["start"]
        results = {k: journal.results[k] for k in items.items if k in journal.results}
        outputs = {s: pair.system_output(s) for s in items.systems}
        exclude = config.degraded == "exclude"
        paths = write_outputs(out, config.lp, config.metric_name, items, results, pair.sources, outputs,
                              config.segment.reference, exclude_degraded=exclude)
        scored = counted(results, exclude)  # what the statistics see
        seg = segment_scores(items, scored, pair.n_segments)
        meta = meta_evaluation(pair, items, seg)
        spans = span_evaluation(pair, items, scored) if _marks_spans(config) else {}
        summary = run_summary(items, results, wall)
        summary["degraded_excluded"] = exclude
        summary["debate"] = debate_summary(results)
        summary["resumed_items"] = done
        summary["second_pass"] = second.summary()
        summary["setup_seconds"] = clock["start"] - setup_started
        summary["system_scores_gap"] = system_level_gap(items, results)
        if batch_stats is not None:
            summary["batch"] = batch_stats
        if config.sampling.used:
            summary["sampling"] = sampling_summary(config.sampling, results)
            paths["samples"] = write_samples_table(out / "samples.tsv", items, results)
        # A score not on MQM's scale (GEMBA-ESA: 0-100) has no distribution against the human MQM.
        scores = covered_scores(pair, seg) if config.judge.scale == "mqm" else ((), ())
        from tribunal.eval.mt.ceiling import ceiling_summary, run_ceiling  # heavy: pulls in numpy

        ceiling = run_ceiling(pair, seg, config.metric_name, config.judge.scale)
        if ceiling is not None:
            summary["human_ceiling"] = ceiling_summary(ceiling)
        from tribunal.eval.mt.error_free import run_error_free  # heavy: pulls in numpy

        error_free = run_error_free(pair, items, scored, config.judge.scale)
        if error_free is not None:
            summary["error_free"] = error_free
        result = EvaluationResult(summary, meta, spans, run_sig, paths, results=results, scores=scores,
                                  debates=debate_rounds(results, _debate_rounds(config)), ceiling=ceiling)
        paths["report"] = out / PAGE_FILE  # named in summary.json; the page is drawn from the same summary
        result.run_summary = mt_run_summary(result, cap, tracker.run.run_id)
        try:
            write_run_page(out, result.run_summary, items, results, pair, config.judge.scale)
        except OSError as err:  # a view of what is written: a full disk costs the page (atomic: no part left), not the run
            del paths["report"]
            result.page_error = summary["page_error"] = err.strerror or str(err)
            result.run_summary = mt_run_summary(result, cap, tracker.run.run_id)
        paths["summary"] = write_run_summary(summary_path(out), result.run_summary)
        result.run_id = _track(tracker.run, config, result, journal.path, tracker.finish(results))
    return result


def _debate_rounds(config: EvaluateConfig) -> int:
    """The most rounds a debate of the run's judge holds (0 for a judge without debates)."""
    settings = config.program_settings()
    return settings.debate_rounds() if settings is not None else 0


def check_together(config: EvaluateConfig) -> None:
    """Refuse what a judge of a source's candidates together does not take, before any call."""
    refused = [flag for flag, used in (("--batch", config.batch.enabled), ("--processes above 1", config.processes > 1),
                                       ("--samples", config.sampling.used), ("--reference / --context", config.segment.used))
               if used]
    if refused:
        raise UserError(f"--program {config.program} judges a source's candidates together: not with {', '.join(refused)}")


def check_cap(config: EvaluateConfig, cap: Any) -> None:
    """Refuse a cap this run could not honour, before any call."""
    if config.batch.enabled:
        raise UserError("--max-cost / --max-calls: not with --batch (a batch is priced when it is collected)")
    if config.processes > 1:
        raise UserError("--max-cost / --max-calls: not with --processes above 1 (the cap's ledger is one process's)")
    cap.check_models([config.lm.model, *(own.model for own in config.role_lms.values())])


def _track(run: Any, config: EvaluateConfig, result: EvaluationResult, journal: Path,
           tracked: dict[str, float] | None = None) -> str | None:
    """Params, metrics, outputs and the description of the (already open) run.

    Tracking off (a :class:`~tribunal.eval.tracking.mlflow_run.NullRun`): nothing is computed, as
    nothing would be logged (the distribution comparison alone imports scipy.stats and took a
    fifth of a short run's CPU).
    """
    if run.run_id is None:
        return None

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
    params |= {f"lm.{role}": own.label() for role, own in config.role_lms.items()}
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
    from tribunal.eval.mt.error_free import error_free_metrics  # heavy: pulls in numpy

    metrics |= error_free_metrics(summary.get("error_free"))
    metrics |= {f"batch.{k}": float(v) for k, v in (summary.get("batch") or {}).items()
                if isinstance(v, (int, float)) and not isinstance(v, bool)}
    metrics |= {f"samples.{k}": float(v) for k, v in (summary.get("sampling") or {}).items()
                if isinstance(v, (int, float)) and not isinstance(v, bool)}
    metrics |= usage_metrics(add_summaries([r.usage for r in result.results.values()]), config.lm.model,
                             {role: own.model for role, own in config.role_lms.items()}, config.batch.enabled)
    metrics |= tracked or {}
    run.log_params(params)
    run.log_metrics(metrics)
    run.log_text(result.paths["summary"].read_text(encoding="utf-8"), "summary.json")
    for key in ("seg", "sys", "degraded", "errors", "transcripts", "samples"):
        if key in result.paths:  # no .sys.score for a partial run
            run.log_artifact(result.paths[key], "outputs")
    if journal.exists():  # none when the run had no item to judge
        run.log_artifact(journal, "outputs")
    if "report" in result.paths:
        run.log_artifact(result.paths["report"])  # at the top: MLflow's artifact viewer shows the page in the run
    _log_analysis(run, result)
    if result.ceiling is not None:
        from tribunal.eval.mt.ceiling import log_ceiling  # heavy: pulls in numpy

        log_ceiling(run, result.ceiling)
    shown = key_metrics(metrics, key_metric_order())
    run.set_tags({DESCRIPTION_TAG: description(f"{config.metric_name} on {config.lp}", result.signature, shown,
                                               [f"outputs: {result.paths['seg'].parent.parent.parent}"])})
    return run.run_id


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

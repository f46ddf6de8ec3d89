"""One MT judge run end to end: select items, judge the unfinished ones, write, evaluate, track."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from tribunal.eval.mt.config import EvaluateConfig
from tribunal.eval.tracking.mlflow_run import TrackingSettings


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


def _demo_root(config: EvaluateConfig) -> Path:
    if config.demo_data:
        return config.demo_data
    root = os.environ.get("TRIBUNAL_DATA")
    if not root:
        raise ValueError("few-shot demos need the TED MQM data: pass demo_data / --demo-data or set TRIBUNAL_DATA")
    return Path(root) / "mqm-ted"


def _tuned_state(config: EvaluateConfig) -> dict[str, Any] | None:
    """The verified export named by ``config.program_file`` (None without one)."""
    if config.program_file is None:
        return None
    from tribunal.errors import UserError
    from tribunal.optimizers.export import read_export

    document = read_export(config.program_file)
    if document["program"]["name"] != config.program:
        raise UserError(f"{config.program_file}: exported program is {document['program']['name']!r}, "
                        f"not {config.program!r}")
    return document


def program_factory(config: EvaluateConfig, engine: Any = None) -> Callable[[], Any]:
    """A function building a fresh program (one per worker thread) with its LMs and demos.

    With ``config.program_file`` the tuned export's state (instructions, demos) replaces the
    default demos, after its structure is checked against the program built from ``config``.
    """
    from tribunal.errors import UserError
    from tribunal.eval.mt.meter import attach_relay
    from tribunal.optimizers.identity import program_identity
    from tribunal.programs.lm import build_lm, build_role_lms
    from tribunal.programs.mqm.registry import build_program
    from tribunal.programs.mqm.roles import RoleLMs

    if engine is None and len(config.router.endpoints) > 1:
        from tribunal.eval.mt.router import RouterEngine, build_router

        engine = RouterEngine(build_router(config))
    elif engine is None and not config.role_lms:
        from tribunal.eval.mt.connections import pooled_engine

        engine = pooled_engine(config.lm, config.concurrency)
    # The relay callback lets the per-item usage meter count these LMs' calls.
    lms = RoleLMs(attach_relay(build_lm(config.lm, engine)),
                  {role: attach_relay(lm) for role, lm in build_role_lms(config.lm, config.role_lms, engine).items()})
    tuned = _tuned_state(config)  # an export carries its own demos
    demos: dict[str, list] = {}
    if tuned is not None:
        demos = {}
    elif config.program == "gemba-mqm":
        from tribunal.programs.mqm.demos import gemba_demos

        demos = {"annotate": gemba_demos(_demo_root(config), config.lp)}
    elif config.program == "mmad" and config.demos and "stage1" not in config.mmad.ablate:
        from tribunal.programs.mqm.demos import dimension_demos

        demos = dimension_demos(_demo_root(config), config.lp, config.demos)

    def make() -> Any:
        program = build_program(config.program, config.mmad, lms)
        for name, examples in demos.items():
            getattr(program, name).demos = list(examples)
        if tuned is not None:
            if program_identity(program) != tuned["program"]["identity"]:
                raise UserError(f"{config.program_file}: its structure does not match {config.program} "
                                "with these settings (stages, strategy)")
            program.load_state(tuned["state"])
        return program

    if tuned is not None:
        make()  # a mismatch is reported before any item is judged
    return make


def run_evaluation(config: EvaluateConfig, tracking: TrackingSettings, engine: Any = None,
                   progress: Callable[[int, int], Any] | None = None) -> EvaluationResult:
    """Judge, write the outputs, meta-evaluate the covered cells and log the run.

    ``progress(done, total)`` is called after each item; ``engine`` replaces the HTTP engine (tests).
    """
    from tribunal.eval.data.mtme import LanguagePair
    from tribunal.eval.mt.items import select_items
    from tribunal.eval.mt.journal import Journal, journal_path
    from tribunal.eval.mt.judging import judge_all
    from tribunal.eval.mt.outputs import segment_scores, write_outputs
    from tribunal.eval.mt.analysis import covered_scores, debate_rounds, debate_summary
    from tribunal.eval.mt.report import meta_evaluation, run_summary, span_evaluation
    from tribunal.eval.tracking.signature import signature, text_hash
    from tribunal.programs.mqm.demos import LANGUAGES

    if config.data is None:
        raise ValueError("no data folder given")
    setup_started = time.perf_counter()
    pair = LanguagePair(config.data, config.lp)
    items = select_items(pair, config.systems, config.rated_only, config.limit)
    config_sig = config.config_signature()
    journal = Journal(journal_path(config.out, config_sig), config_sig)
    pending = [i for i in items.items.values() if not journal.done(i.key, config.retry_unscored)]
    src, _, tgt = config.lp.partition("-")
    languages = {"source_lang": LANGUAGES.get(src, src), "target_lang": LANGUAGES.get(tgt, tgt)}
    total, done = len(items.items), len(items.items) - len(pending)
    counter = {"done": done}

    def landed(_result: Any) -> None:
        counter["done"] += 1
        if progress:
            progress(counter["done"], total)

    if progress:
        progress(done, total)
    clock = {"start": time.perf_counter()}

    def start_clock() -> None:  # judging only: data, demos and worker start-up are not LM work
        clock["start"] = time.perf_counter()

    batch_stats = None
    if pending and config.batch.enabled:
        from tribunal.eval.mt.batch.runner import judge_in_batches

        batch_stats = judge_in_batches(config, pending, languages, journal, landed, start_clock)
    elif pending and config.processes > 1 and engine is None:
        from tribunal.eval.mt.processes import judge_in_processes

        program_factory(config)  # bad settings or data fail here, with their own message, before any worker
        judge_in_processes(config, pending, languages, journal, landed, start_clock)
    elif pending:
        make_program = program_factory(config, engine)
        start_clock()
        judge_all(make_program, pending, languages, journal, config.concurrency, landed, fan_out=config.fan_out)
    wall = time.perf_counter() - clock["start"]
    results = {k: journal.results[k] for k in items.items if k in journal.results}
    outputs = {s: pair.system_output(s) for s in items.systems}
    paths = write_outputs(config.out, config.lp, config.metric_name, items, results, pair.sources, outputs)
    seg = segment_scores(items, results, pair.n_segments)
    meta = meta_evaluation(pair, items, seg)
    spans = span_evaluation(pair, items, results) if config.program != "eaprompt" else {}
    summary = run_summary(items, results, wall)
    summary["debate"] = debate_summary(results)
    summary["resumed_items"] = done
    summary["setup_seconds"] = clock["start"] - setup_started
    if batch_stats is not None:
        summary["batch"] = batch_stats
    slice_hash = text_hash("\n".join(sorted(items.items)))
    run_sig = config_sig.replace("|v:", f"|data:{Path(config.data).name}/{config.lp}@{slice_hash}|v:")
    result = EvaluationResult(summary, meta, spans, run_sig, paths, results=results,
                              scores=covered_scores(pair, seg), debates=debate_rounds(results, config.mmad.rounds))
    result.run_id = _track(tracking, config, result, journal.path)
    return result


def _track(tracking: TrackingSettings, config: EvaluateConfig, result: EvaluationResult, journal: Path) -> str | None:
    import json

    from tribunal.eval.tracking.mlflow_run import tracked_run

    params = {"program": config.program, "lp": config.lp, "metric_name": config.metric_name,
              "lm": config.lm.model, "api_base": config.lm.api_base, "systems": len(config.systems or []) or "scored",
              "limit": config.limit, "rated_only": config.rated_only, "concurrency": config.concurrency,
              "processes": config.processes,
              "fan_out": config.fan_out,
              "demos": config.demos, "signature": result.signature,
              "program_export": config.program_sha256[:12] if config.program_sha256 else None}
    if config.program == "mmad":
        params |= {f"mmad.{k}": ",".join(v) if isinstance(v, tuple) else v for k, v in config.mmad.model_dump().items()}
    params |= {f"lm.{role}": model for role, model in config.role_lms.items()}
    summary = result.summary
    metrics = {k: float(v) for k, v in summary.items() if isinstance(v, (int, float))}
    metrics |= {f"calls.{k}": float(v) for k, v in summary["lm_calls_by_stage"].items()}
    metrics |= {f"calls.{k}": float(v) for k, v in summary["lm_calls_by_role"].items()}
    metrics |= {f"tokens.{k}": float(v) for k, v in summary["tokens_by_stage"].items()}
    metrics |= {f"unscored.{k}": float(v) for k, v in summary["unscored_reasons"].items()}
    metrics |= {f"meta.{k}": v for k, v in result.meta.items()} | {f"span.{k}": v for k, v in result.spans.items()}
    with tracked_run(tracking, f"mt-evaluate {config.metric_name} {config.lp}", params=params,
                     signature=result.signature) as run:
        run.log_metrics(metrics)
        run.log_text(json.dumps(summary, indent=2, ensure_ascii=False), "summary.json")
        for key in ("seg", "sys", "errors", "transcripts"):
            run.log_artifact(result.paths[key], "outputs")
        run.log_artifact(journal, "outputs")
        _log_analysis(run, result)
        return run.run_id


def _log_analysis(run: Any, result: EvaluationResult) -> None:
    """Score distribution against the human one (table and plot) and debates by round (steps)."""
    judge, human = result.scores
    if len(judge) >= 2:
        from tribunal.eval.meta.distribution import compare_distributions, distribution_figure

        comparison = compare_distributions(judge, human)
        run.log_text(comparison.summary.to_csv(sep="\t"), "distribution.tsv")
        run.log_metrics({"distribution.wasserstein": comparison.wasserstein, "distribution.ks": comparison.ks_statistic})
        run.log_figure(distribution_figure(judge, human, f"{result.summary.get('items', '')} items: judge vs human MQM"),
                       "distribution.png")
    for round_, stats in sorted(result.debates.items()):
        run.log_metrics({f"debate.{k}": v for k, v in stats.items()}, step=round_)

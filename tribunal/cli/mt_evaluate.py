"""``tribunal mt evaluate``: run an MT judge (M-MAD or a baseline) over WMT-style data."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator, List, Optional

import typer
from pydantic import ValidationError

from tribunal.cli.common import Experiment, NoTrack, TraceSample, TrackingUri, data_root
from tribunal.cli.console import console as make_console
from tribunal.cli.console import line
from tribunal.cli.errors import UserError
from tribunal.cli.help_policy import examples
from tribunal.cli.lm_options import (API_KEY_ENV_HELP, CACHE_HELP, MaxTokensOption, ReasksOption, RpmOption,
                                     ServerSlotsOption, TimeoutOption, TpmOption, check_rates, check_timeout,
                                     parse_server_slots)
from tribunal.cli.numbers import count, money, number, seconds
from tribunal.core.judges import JUDGES
from tribunal.errors import EXIT_CAPPED, EXIT_UNSCORED
from tribunal.cli.common import tracking_settings
from tribunal.cli.lm_options import independent_repeats_notice
from tribunal.cli.mt_agreement import ceiling_summary_lines
from tribunal.cli.cap_options import MaxCallsOption, MaxCostOption, cap_lines, make_cap
from tribunal.cli.estimate_options import EstimateOption, JsonOption, show_estimate
from tribunal.cli.setting_flags import SettingOption, setting_values, with_setting_flags
from tribunal.programs.local_models import server_deaths

# Run options only one judge takes (its registry entry's ``options``); the others refuse them.
OWNED_OPTIONS = tuple(option for judge in JUDGES for option in judge.options)
EPILOG = examples(
    "tribunal mt evaluate --lp zh-en --lm openai/gpt-4o-mini --limit 20",
    "tribunal mt evaluate --lp en-de --lm openai/Qwen2.5-7B-Instruct --api-base http://localhost:8000/v1 "
    "--strategy deliberation --ablate stage2",
    "tribunal mt evaluate --lp zh-en --lm openai/gpt-4o-mini --role-lm judge=openai/gpt-4o --program mmad",
    "tribunal mt evaluate --lp en-de --lm openai/gpt-4o-mini --program gemba-mqm --reference refA --context 2 "
    "--samples 5 --temperature 1 --combine trimmed",
    "tribunal mt evaluate --config run.toml --limit 50   # flags override the file")


@with_setting_flags  # the flags of judges' settings (--rounds, --ablate, ...), from the registry
def evaluate(
    ctx: typer.Context,
    lp: Optional[str] = typer.Option(None, "--lp", help="Language pair, e.g. zh-en. Required (here or as lp in --config)."),
    lm: Optional[str] = typer.Option(None, "--lm", help="LiteLLM model name of every role without a --role-lm, e.g. "
                                     "openai/gpt-4o-mini. Required (here or as lm.model in --config)."),
    data: Optional[Path] = typer.Option(None, "--data", help="A folder in the mt-metrics-eval layout (default: $TRIBUNAL_DATA/wmt23)."),
    program: Optional[str] = typer.Option(None, "--program", metavar="NAME|FILE", help=f"{' | '.join(JUDGES.names('mt'))} (default: {JUDGES.default('mt')}), or a tuned export (.json) from `tribunal export`."),
    settings_given: Optional[List[str]] = SettingOption,
    api_base: Optional[List[str]] = typer.Option(
        None, "--api-base", help="Base URL of an OpenAI-compatible server (vLLM, Ollama, a gateway); repeat it for "
        "several replicas of the model (LiteLLM's Router balances them)."),
    routing: Optional[str] = typer.Option(None, "--routing", help="With several --api-base: least-busy (default) | simple-shuffle."),
    batch: Optional[bool] = typer.Option(None, "--batch", help="Send the calls through the provider's batch API "
                                         "(OpenAI, vLLM, Anthropic) at the batch price; results take longer."),
    batch_poll: Optional[float] = typer.Option(None, "--batch-poll", help="With --batch: first wait between status checks, in seconds (default: 30)."),
    api_key_env: Optional[str] = typer.Option(None, "--api-key-env", help=API_KEY_ENV_HELP),
    cache: Optional[bool] = typer.Option(None, "--cache/--no-cache", help=CACHE_HELP + " Default: on."),
    reasks: Optional[int] = ReasksOption,
    max_tokens: Optional[int] = MaxTokensOption,
    timeout: Optional[float] = TimeoutOption,
    max_cost: Optional[float] = MaxCostOption,
    max_calls: Optional[int] = MaxCallsOption,
    server_slots: Optional[str] = ServerSlotsOption,
    rpm: Optional[float] = RpmOption,
    tpm: Optional[float] = TpmOption,
    role_lm: Optional[List[str]] = typer.Option(None, "--role-lm", help="A role on its own LM (repeatable): ROLE=MODEL or ROLE=MODEL@API_BASE, e.g. judge=openai/gpt-4o; roles: dimension, debater, judge, ..."),
    systems: Optional[List[str]] = typer.Option(None, "--systems", help="A system to judge (repeatable; default: every scored system)."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Judge at most N unique (source, translation) items."),
    rated_only: Optional[bool] = typer.Option(None, "--rated-only", help="Only cells with a gold MQM score."),
    concurrency: Optional[int] = typer.Option(None, "--concurrency", help="At most N LM calls in flight (default: 8)."),
    judging: Optional[str] = typer.Option(
        None, "--judging", metavar="threads|async",
        help="How items are judged: threads (default) or async (coroutines on one event loop, a call in flight "
             "costs a task and a socket; --concurrency up to 4096; every MT judge)."),
    processes: Optional[int] = typer.Option(
        None, "--processes", help="Worker processes sharing those calls (default: 1; try 2 or more at high concurrency)."
    ),
    demos: Optional[int] = typer.Option(None, "--demos", help="M-MAD: few-shot demos per stage-1 agent (default: the preset's, 4 for paper, 2 for lean)."),
    reference: Optional[str] = typer.Option(None, "--reference", metavar="NAME|none", help="Show the judge the data set's reference of that name (e.g. refA) beside the translation (default: none, reference-free as in the papers)."),
    context: Optional[int] = typer.Option(None, "--context", metavar="N", help="Show the judge the N previous segments of the same document (source and this translation of them; from documents/LP.docs) as context, never judged (default: 0)."),
    samples: Optional[int] = typer.Option(None, "--samples", metavar="K", help="K independent judgments per item (each its own DSPy rollout, never another's cached answer), combined by --combine; calls and spend scale by K (default: 1)."),
    combine: Optional[str] = typer.Option(None, "--combine", metavar="RULE", help="How --samples are combined: mean (default) | median | trimmed (tribunal's rule after GEMBA-MQM V2: drop scores beyond 2 sigma, reciprocal-rank weighted average) | gemba-v2 (the published GEMBA-MQM V2 aggregation, as far as its abstract states it)."),
    temperature: Optional[float] = typer.Option(None, "--temperature", metavar="T", help="Sampling temperature of every LM call (default: 0); use T > 0 with --samples."),
    out: Optional[Path] = typer.Option(None, "--out", metavar="DIR", help="Output folder (default: tribunal-out/mt/<configuration>-<hash>, one per configuration)."),
    name: Optional[str] = typer.Option(None, "--name", help="Metric name in the score files (default: from the program and its settings, e.g. M-MAD-deliberation)."),
    retry_unscored: Optional[bool] = typer.Option(None, "--retry-unscored", help="Judge journaled unscored and degraded items again (they are paid again)."),
    strict: Optional[bool] = typer.Option(None, "--strict", help="No fallbacks: a role whose answer stays unusable after its re-asks unscores its item (default: the program's fallback, e.g. M-MAD keeps a failed debate's stage-1 annotation, and the item is marked degraded)."),
    degraded: Optional[str] = typer.Option(None, "--degraded", metavar="include|exclude", help="Whether degraded items count in the score files and the meta-evaluation (default: include); errors.jsonl lists them either way."),
    config: Optional[Path] = typer.Option(None, "--config", help="A .toml or .json file of settings (the fields of EvaluateConfig); flags override it."),
    trace_sample: Optional[float] = TraceSample,
    tracking_uri: Optional[str] = TrackingUri,
    no_track: bool = NoTrack,
    experiment: str = Experiment,
    estimate: bool = EstimateOption,
    as_json: bool = JsonOption,
    setting_flags: Optional[dict] = None,
) -> None:
    """Judge translations with an LM judge and meta-evaluate it.

    Runs M-MAD (or a baseline) on the items of one language pair, writes MTME score files
    (metric-scores/LP/NAME-src.seg.score), errors.jsonl and transcripts.jsonl, meta-evaluates the
    covered cells against the human MQM scores and logs an MLflow run with a trace per item. A run
    is journaled: rerunning the same command resumes it.
    """
    from tribunal.service.judging import JobRequest, configure, layered  # startup: kept out of `tribunal --help`
    from tribunal.eval.mt.config import load_config_file  # heavy: pulls in dspy
    from tribunal.programs.lm import parse_role_lms  # startup: kept out of `tribunal --help`

    check_timeout(timeout)
    check_rates(rpm, tpm)
    try:
        base = load_config_file(config) if config else {}
        roles = parse_role_lms(role_lm) if role_lm else None
    except (OSError, ValueError) as err:
        raise UserError(str(err)) from None
    role_lms = {r: m.model_dump(exclude_none=True) for r, m in roles.items()} if roles else None
    flags = {"lp": lp, "data": data, "program": program, "role_lms": role_lms,
             "lm": {"model": lm, "api_base": api_base[0] if api_base else None, "api_key_env": api_key_env,
                    "cache": cache, "reasks": reasks, "temperature": temperature, "max_tokens": max_tokens,
                    "timeout": timeout, "server_slots": parse_server_slots(server_slots), "rpm": rpm, "tpm": tpm},
             "segment": {"reference": reference, "context": context},
             "sampling": {"samples": samples, "combine": combine},
             "router": {"endpoints": list(api_base) if api_base and len(api_base) > 1 else None, "strategy": routing},
             "batch": {"enabled": batch, "poll_seconds": batch_poll},
             "systems": list(systems) if systems else None, "limit": limit, "rated_only": rated_only,
             "concurrency": concurrency, "judging": judging, "processes": processes, "demos": demos, "out": out, "name": name, "retry_unscored": retry_unscored,
             "strict": strict, "degraded": degraded}
    # A tuned export brings its program and settings; explicit flags still override the settings.
    merged = layered(JobRequest(base=base, given=flags))
    given = {"--demos": demos, "--routing": routing, "--batch-poll": batch_poll, "--combine": combine}
    refuse_conflicts(merged, {k: v for k, v in given.items() if v is not None})
    merged = _with_settings(merged, settings_given, setting_flags or {})
    if not merged.get("data"):
        root = data_root()
        merged["data"] = root / "wmt23" if root else None
    if not merged.get("lp"):
        raise UserError("no language pair: pass --lp LP (e.g. zh-en) or set lp in --config")
    lm_table = merged.get("lm")
    if not isinstance(lm_table, dict) or not lm_table.get("model"):
        raise UserError("no LM: pass --lm MODEL (e.g. openai/gpt-4o-mini) or set lm.model in --config")
    try:
        settings = configure(merged)
    except ValidationError as err:
        raise UserError(validation_line(err, merged)) from None
    if settings.data is None or not (Path(settings.data) / "sources").is_dir():
        raise UserError(f"{settings.data}: not a folder in the mt-metrics-eval layout (pass --data)")
    if estimate:
        return _estimate(settings, tracking_settings(tracking_uri, no_track, experiment), as_json)
    _sampling_notice(settings)
    cap = make_cap(max_cost, max_calls, batch=settings.batch.enabled, ctx=ctx)
    result = run_and_report(settings, tracking_settings(tracking_uri, no_track, experiment), trace_sample=trace_sample,
                            cap=cap)
    summary = result.summary
    if result.run_summary.stopped_by:
        line(make_console(), f"stopped by {result.run_summary.stopped_by} (exit status {EXIT_CAPPED})")
        raise typer.Exit(EXIT_CAPPED)
    if summary["scored"] < summary["items"]:
        line(make_console(), f"{summary['items'] - summary['scored']} of {summary['items']} items unscored "
                             f"(exit status {EXIT_UNSCORED})")
        raise typer.Exit(EXIT_UNSCORED)


def _with_settings(merged: dict, assignments: list[str] | None, flags: dict) -> dict:
    """``merged`` with the command line's settings of its program (``-S``, the judge's flags) in its section."""
    from tribunal.service.judging import JobRequest, layered  # startup: kept out of `tribunal --help`

    judge = JUDGES.find(merged.get("program") or JUDGES.default("mt"))
    values = setting_values(judge, assignments, flags) if judge is not None else {}
    return layered(JobRequest(base=merged, settings=values)) if values else merged


def validation_line(err: ValidationError, merged: dict) -> str:
    """The first error of a configuration, on one line: ``mmad.rounds: Input should be ...`` (a judge's
    settings named by its section, as the config file writes them)."""
    first = err.errors()[0]
    loc = [str(part) for part in first["loc"]]
    judge = JUDGES.find(merged.get("program") or JUDGES.default("mt"))
    if loc[:1] == ["settings"] and judge is not None and judge.settings is not None:
        loc[0] = judge.settings.section
    return f"{'.'.join(loc)}: {first['msg']}" if loc else first["msg"]


def _estimate(settings, tracking, as_json: bool) -> None:
    """``--estimate``: the run rehearsed and its cost shown; nothing is sent, no MLflow run is made."""
    from tribunal.data.errors import DataFormatError  # startup: kept out of `tribunal --help`
    from tribunal.eval.estimate.mt_estimate import estimate_evaluation  # startup: kept out of `tribunal --help`

    try:
        show_estimate(estimate_evaluation(settings, tracking), as_json)
    except (ValueError, DataFormatError) as err:
        raise UserError(str(err)) from None


def refuse_conflicts(merged: dict, given: dict) -> None:
    """One-line refusals of options the resolved configuration would silently ignore."""
    program = merged.get("program") or JUDGES.default("mt")
    for option in OWNED_OPTIONS:
        owner = JUDGES.owner(option)
        if option in given and program != owner.name:
            raise UserError(f"{option}: an {owner.title} setting, but the program is {program} (drop {option}, "
                            f"or use --program {owner.name})")
    endpoints = (merged.get("router") or {}).get("endpoints") or []
    if "--routing" in given and len(endpoints) < 2:
        raise UserError("--routing: balances several endpoints; give --api-base more than once")
    if "--batch-poll" in given and not (merged.get("batch") or {}).get("enabled"):
        raise UserError("--batch-poll: only used with --batch")
    if "--combine" in given and int((merged.get("sampling") or {}).get("samples") or 1) < 2:
        raise UserError("--combine: combines the judgments of --samples K; give --samples 2 or more")


def _sampling_notice(settings) -> None:
    """The note for K samples at temperature 0 (they are fresh calls, but a deterministic model repeats itself)."""
    notice = independent_repeats_notice(settings.sampling.samples, settings.lm.temperature or 0.0, "--samples")
    if notice:
        from rich.markup import escape  # startup: kept out of `tribunal --help`

        make_console(stderr=True).print(f"[yellow]note:[/yellow] {escape(notice)}")


def run_and_report(settings, tracking, engine=None, trace_sample=None, cap=None):
    """Run with a progress bar on stderr, print the summary and return the result (shared with ``tribunal demo``)."""
    from tribunal.cli.progress import progress_bars  # startup: kept out of `tribunal --help`
    from tribunal.service.judging import run  # startup: kept out of `tribunal --help`
    from tribunal.data.errors import DataFormatError  # startup: kept out of `tribunal --help`

    label = f"judging {settings.metric_name} {settings.lp}"
    with progress_bars() as report:
        try:
            result = run(settings, tracking, engine, progress=lambda done, total: report(label, done, total),
                         trace_sample=trace_sample, cap=cap)
        except (ValueError, DataFormatError) as err:
            raise UserError(str(err)) from None
    console = make_console()
    print_summary(console, result.run_summary)
    from tribunal.runner.connections import server_lines  # startup: kept out of `tribunal --help`

    for text in server_lines(settings.lm, settings.role_lms, settings.concurrency):
        line(console, f"server: {text}")
    return result


SPAN_KEYS = ("mpp_precision", "mpp_recall", "mpp_f", "wmt25_precision", "wmt25_recall", "wmt25_f",
             "char_precision", "char_recall", "char_f1", "span_precision", "span_recall", "span_f1")
SPAN_LABELS = {"mpp_f": " (micro MPP, Perrella et al. 2026)", "wmt25_f": " (WMT25 character counts)",
               "char_f1": " (legacy pooled character F1)", "span_f1": " (legacy: one shared character matches)"}


def meta_keys() -> tuple[str, ...]:
    """The run report's statistics, printed as logged (``meta.<key>`` in MLflow), in table order."""
    from tribunal.eval.meta.statistics import per_lp_tasks  # heavy: pulls in numpy

    return tuple(s.key for s in per_lp_tasks("run"))


def meta_reasons(meta: dict) -> dict[str, str]:
    """Why each meta-evaluation value is undefined on the covered cells (as its statistic declares)."""
    from tribunal.eval.meta.statistics import STATISTICS  # heavy: pulls in numpy

    return {key: s.why_undefined(meta) for key, s in STATISTICS.items()}


def span_reasons(spans: dict) -> dict[str, str]:
    """Why a span precision / recall / F1 is undefined (in the same counts the summary prints)."""
    ungrounded, source = count(spans.get("judge_spans_ungrounded") or 0), count(spans.get("judge_spans_source") or 0)
    precision = "the judge marked no error span in the rated cells"
    if spans.get("judge_spans_ungrounded"):
        precision = f"none of the judge's spans in the rated cells was located in the translation ({ungrounded} ungrounded"
        precision += f", {source} in the source)" if spans.get("judge_spans_source") else ")"
    elif spans.get("judge_spans_source"):
        precision = f"the judge marked only source-side errors in the rated cells ({source})"
    recall = "the human raters marked no error span in the covered cells"
    f1 = precision if not spans.get("predicted_spans") else recall
    return {f"{level}_{name}": reason for level in ("char", "span")
            for name, reason in (("precision", precision), ("recall", recall), ("f1", f1))}


def span_sides(tally: dict) -> str:
    """``"9 in the translation (7 exact, 1 fuzzy, 1 ungrounded: not found in it), 2 in the source (2 exact)"``:
    one wording for every line that counts spans (:func:`tribunal.eval.mt.report.span_tally`)."""
    from tribunal.eval.mt.report import GROUNDINGS  # heavy: pulls in dspy, numpy

    parts = []
    for side in ("translation", "source"):
        how = [f"{count(tally.get(f'{side}_{g}', 0))} {g}" + (": not found in it" if g == "ungrounded" else "")
               for g in GROUNDINGS if tally.get(f"{side}_{g}")]
        parts.append(f"{count(tally.get(side, 0))} in the {side}" + (f" ({', '.join(how)})" if how else ""))
    return ", ".join(parts)


def sampling_line(sampling: dict) -> str:
    """``samples: K=5 per item, combined by trimmed; the calls, tokens and spend below are for all 5 ...``."""
    k = sampling["k"]
    text = (f"samples: K={k} per item, combined by {sampling['rule']}; the LM calls, tokens and spend below cover "
            f"all {k} samples (x{k} a single judgment)")
    if sampling["dropped"]:
        text += (f"; {sampling['dropped']} unusable samples dropped in {sampling['items_with_dropped']} items "
                 "(each scored from the rest)")
    if sampling["items_too_few"]:
        text += f"; {sampling['items_too_few']} items unscored with fewer than ceil(K/2) usable samples"
    if sampling.get("mean_std") is not None:
        text += f"; per-item spread: mean std {number(sampling['mean_std'])}, largest {number(sampling['max_std'])}"
    return text


def runaways_line(s: dict) -> str:
    """Runaways per role beside its re-asks, e.g. ``... runaways ...: 3 (stage1/coupled 3 (re-asks 4))``."""
    reasks = s.get("lm_reasks_by_role", {})
    roles = ", ".join(f"{role} {n} (re-asks {reasks.get(role, 0)})"
                      for role, n in sorted(s.get("lm_runaways_by_role", {}).items()))
    return (f"  runaways (answers cut while repeating themselves, re-asked at the same token limit): "
            f"{s['lm_runaways']}" + (f" ({roles})" if roles else ""))


def print_summary(console, summary) -> None:
    """The run's summary: items, calls, spend, agreement with the humans, files, signature.

    Rendered from the :class:`~tribunal.core.run_summary.RunSummary` alone (what ``summary.json`` holds),
    so the file read back renders the same text.
    """
    s = summary.details
    say = lambda text: line(console, text)  # noqa: E731
    for part in (_item_lines(summary), _call_lines(summary), _meta_lines(summary.meta),
                 _span_eval_lines(summary.spans), _output_lines(summary)):
        for text in part:
            say(text)
    say(f"wall time: {seconds(s['wall_seconds'])}")
    say(f"signature: {summary.signature}")
    if summary.mlflow_run_id:
        say(f"MLflow run {summary.mlflow_run_id}")


def _item_lines(summary) -> Iterator[str]:
    """The items judged, scored, degraded and unscored, and why."""
    s = summary.details
    degraded = f" (of which {s['degraded']} degraded)" if s.get("degraded") else ""
    left = f", left {summary.items.left} (stopped by {summary.stopped_by})" if summary.items.left else ""
    yield (f"items: {s['items']} unique of {s['cells']} cells ({s['duplicates']} duplicates); "
           f"scored {s['scored']}{degraded}, unscored {s['unscored']}, resumed from journal {s['resumed_items']}{left}")
    if s.get("degraded"):
        roles = ", ".join(f"{n} x {role}" for role, n in sorted(s["degraded_by_role"].items()))
        left = "left out of the scores and the tables (--degraded exclude)" if s.get("degraded_excluded") else \
            "counted in the scores (--degraded exclude leaves them out; --strict unscores them)"
        yield (f"  degraded: scored with a fallback after a role stayed unusable ({roles}); {left}; "
               "errors.jsonl says what stood in")
    second = s.get("second_pass") or {}
    if second.get("items"):
        yield (f"  second pass (items a transient failure left unscored, judged once more at the end): "
               f"{second['recovered']} of {second['items']} recovered")
    elif second.get("skipped"):
        yield (f"  no second pass: {second['skipped']}")
    for reason, n in sorted(s["unscored_reasons"].items()):
        yield (f"  unscored: {n} x {reason}")
    if s["unscored_retryable"]:
        died = bool(server_deaths())  # a rerun as it is would meet the same crash
        yield (f"  {s['unscored_retryable']} unscored without an answer (rate limit, timeout, server, connection): "
               + ("the local model server died during the run (see its line above)" if died
                  else "rerun the same command to judge them again"))
    if s["unscored_permanent"]:
        yield (f"  {s['unscored_permanent']} unscored with an unusable answer: "
               "rerun with --retry-unscored to pay for them again"
               + (" (it re-judges the degraded items too)" if s.get("degraded") else ""))


def _call_lines(summary) -> Iterator[str]:
    """The LM calls, tokens, spend and cap, and the spans the judge marked."""
    s = summary.details
    if s.get("sampling"):
        yield sampling_line(s["sampling"])
    stages = ", ".join(f"{k} {v}" for k, v in sorted(s["lm_calls_by_stage"].items())) or "none"
    kinds = ", ".join(f"{k} {v}" for k, v in s.get("lm_reasks_by_kind", {}).items())
    reasks = f"; of which {s.get('lm_reasks', 0)} re-asks" + (f" ({kinds})" if kinds else "")
    yield (f"LM calls: {s['lm_calls']} ({stages}): {s['lm_calls_paid']} answered by the provider, "
           f"{s['lm_calls_cached']} from the response cache, {s['lm_calls_failed']} failed{reasks}")
    if s.get("lm_runaways"):
        yield runaways_line(s)
    yield (f"tokens (provider usage): {s['prompt_tokens']} in, {s['completion_tokens']} out; spend: {s['cost']}")
    for text in cap_lines(summary.cap):
        yield text
    spans = s.get("spans", {})
    if spans.get("translation") or spans.get("source"):
        yield (f"error spans the judge marked in the {s['scored']} scored items: " + span_sides(spans))


def _meta_lines(meta) -> Iterator[str]:
    """Agreement with the human MQM scores."""
    if meta:
        reasons = meta_reasons(meta)
        yield (f"against the human MQM scores ({count(meta.get('covered_cells'))} rated cells of "
               f"{count(meta.get('covered_systems'))} systems):")
        for key in meta_keys():
            if key in meta:
                yield (f"  {key}: {number(meta[key], reasons[key])}")


def _span_eval_lines(spans_eval) -> Iterator[str]:
    """The judge's error spans against the raters'."""
    if spans_eval:
        reasons = span_reasons(spans_eval)
        sp = spans_eval
        sides = {k[len("judge_spans_"):]: int(v) for k, v in sp.items() if k.startswith("judge_spans_")}
        marked = f"the judge marked {count(sp.get('judge_spans', 0))} error spans in them: {span_sides(sides)}"
        yield (f"error spans against the raters' ({count(sp.get('rated_cells', sp.get('cells')))} rated cells; {marked}; "
               f"pooled over raters: {count(sp.get('predicted_spans'))} judge spans, {count(sp.get('gold_spans'))} "
               "rater spans):")
        for key in SPAN_KEYS:
            if key in spans_eval:
                yield (f"  span {key}: {number(spans_eval[key], reasons.get(key))}{SPAN_LABELS.get(key, '')}")
        per_rater = {k.rsplit(".", 1)[0]: v for k, v in spans_eval.items() if k.endswith(".mpp_f")}
        if len(per_rater) > 1:
            yield ("  span mpp_f per rater: " + ", ".join(f"{r} {number(v)}" for r, v in per_rater.items()))


def _output_lines(summary) -> Iterator[str]:
    """The error-free and ceiling figures, the files written, the batches."""
    s = summary.details
    if s.get("error_free"):  # the scored cells have gold labels (tribunal.eval.mt.error_free)
        from tribunal.eval.mt.error_free import error_free_lines  # heavy: pulls in numpy

        for text in error_free_lines(s["error_free"]):
            yield text
    if s.get("human_ceiling"):  # several raters scored some judged cells
        for text in ceiling_summary_lines(s["human_ceiling"]):
            yield text
    paths = summary.outputs
    yield (f"outputs: {s['outputs_folder']}, {paths['errors']}, {paths['transcripts']}"
           + (f", {paths['samples']}" if "samples" in paths else ""))
    if "report" in paths:
        yield (f"page: {paths['report']} (open it in a browser, or `tribunal runs view PATH --serve`)")
    elif s.get("page_error"):
        yield (f"page: not written ({s['page_error']}); every other output is")
    if s.get("system_scores_gap"):
        yield (f"system scores: not written ({s['system_scores_gap']}): the segment scores cover part of the "
               "test set only")
    if s.get("batch"):
        b = s["batch"]
        price = b["spend_usd_batch_price"]
        spend = "unknown price" if price is None else f"{money(price)} at the batch price"
        yield (f"batches: {b['batches']} in {b['steps']} steps, {b['requests']} requests "
               f"({b['answered']} answered, {b['failed']} failed), {b['input_tokens']} tokens in, "
               f"{b['output_tokens']} out: {spend}")

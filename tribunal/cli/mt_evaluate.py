"""``tribunal mt evaluate``: run an MT judge (M-MAD or a baseline) over WMT-style data.

The command's options are declared in :mod:`~tribunal.cli.mt_evaluate_options` (and the shared option
modules), turned into the run's configuration by :mod:`~tribunal.cli.mt_evaluate_config`; the summary it
prints is :mod:`~tribunal.cli.mt_summary_lines`.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import List, Optional

import typer

from tribunal.cli.cap_options import MaxCallsOption, MaxCostOption, make_cap
from tribunal.cli.common import Experiment, NoTrack, TraceSample, TrackingUri, tracking_settings
from tribunal.cli.console import console as make_console
from tribunal.cli.console import line
from tribunal.cli.errors import UserError
from tribunal.cli.estimate_options import EstimateOption, JsonOption, show_estimate
from tribunal.cli.lm_options import (MaxTokensOption, ReasksOption, RpmOption, ServerSlotsOption, TimeoutOption,
                                     TpmOption, independent_repeats_notice)
from tribunal.cli.mt_evaluate_config import evaluate_config
from tribunal.cli.mt_evaluate_options import (EPILOG, ApiBaseOption, ApiKeyEnvOption, BatchOption, BatchPollOption,
                                              CacheOption, CombineOption, ConcurrencyOption, ConfigOption,
                                              ContextOption, DataOption, DegradedOption, DemosOption, JudgingOption,
                                              LimitOption, LmOption, LpOption, NameOption, OutOption,
                                              ProcessesOption, ProgramOption, RatedOnlyOption, ReferenceOption,
                                              RetryUnscoredOption, RoleLmOption, RoutingOption, SamplesOption,
                                              StrictOption, SystemsOption, TemperatureOption)
from tribunal.cli.mt_summary_lines import print_summary
from tribunal.cli.setting_flags import SettingOption, with_setting_flags
from tribunal.errors import EXIT_CAPPED, EXIT_UNSCORED

__all__ = ["EPILOG", "evaluate", "run_and_report"]


@with_setting_flags  # the flags of judges' settings (--rounds, --ablate, ...), from the registry
def evaluate(
    ctx: typer.Context,
    lp: Optional[str] = LpOption,
    lm: Optional[str] = LmOption,
    data: Optional[Path] = DataOption,
    program: Optional[str] = ProgramOption,
    settings_given: Optional[List[str]] = SettingOption,
    api_base: Optional[List[str]] = ApiBaseOption,
    routing: Optional[str] = RoutingOption,
    batch: Optional[bool] = BatchOption,
    batch_poll: Optional[float] = BatchPollOption,
    api_key_env: Optional[str] = ApiKeyEnvOption,
    cache: Optional[bool] = CacheOption,
    reasks: Optional[int] = ReasksOption,
    max_tokens: Optional[int] = MaxTokensOption,
    timeout: Optional[float] = TimeoutOption,
    max_cost: Optional[float] = MaxCostOption,
    max_calls: Optional[int] = MaxCallsOption,
    server_slots: Optional[str] = ServerSlotsOption,
    rpm: Optional[float] = RpmOption,
    tpm: Optional[float] = TpmOption,
    role_lm: Optional[List[str]] = RoleLmOption,
    systems: Optional[List[str]] = SystemsOption,
    limit: Optional[int] = LimitOption,
    rated_only: Optional[bool] = RatedOnlyOption,
    concurrency: Optional[int] = ConcurrencyOption,
    judging: Optional[str] = JudgingOption,
    processes: Optional[int] = ProcessesOption,
    demos: Optional[int] = DemosOption,
    reference: Optional[str] = ReferenceOption,
    context: Optional[int] = ContextOption,
    samples: Optional[int] = SamplesOption,
    combine: Optional[str] = CombineOption,
    temperature: Optional[float] = TemperatureOption,
    out: Optional[Path] = OutOption,
    name: Optional[str] = NameOption,
    retry_unscored: Optional[bool] = RetryUnscoredOption,
    strict: Optional[bool] = StrictOption,
    degraded: Optional[str] = DegradedOption,
    config: Optional[Path] = ConfigOption,
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
    _evaluate(SimpleNamespace(**locals()))  # every option by its parameter name


def _evaluate(options: SimpleNamespace) -> None:
    """Configure, then estimate or run, print the summary and exit with the run's status."""
    settings = evaluate_config(options)
    tracking = tracking_settings(options.tracking_uri, options.no_track, options.experiment)
    if options.estimate:
        return _estimate(settings, tracking, options.as_json)
    _sampling_notice(settings)
    cap = make_cap(options.max_cost, options.max_calls, batch=settings.batch.enabled, ctx=options.ctx)
    result = run_and_report(settings, tracking, trace_sample=options.trace_sample, cap=cap)
    summary = result.summary
    if result.run_summary.stopped_by:
        line(make_console(), f"stopped by {result.run_summary.stopped_by} (exit status {EXIT_CAPPED})")
        raise typer.Exit(EXIT_CAPPED)
    if summary["scored"] < summary["items"]:
        line(make_console(), f"{summary['items'] - summary['scored']} of {summary['items']} items unscored "
                             f"(exit status {EXIT_UNSCORED})")
        raise typer.Exit(EXIT_UNSCORED)


def _estimate(settings, tracking, as_json: bool) -> None:
    """``--estimate``: the run rehearsed and its cost shown; nothing is sent, no MLflow run is made."""
    from tribunal.data.errors import DataFormatError  # startup: kept out of `tribunal --help`
    from tribunal.eval.estimate.mt_estimate import estimate_evaluation  # startup: kept out of `tribunal --help`

    try:
        show_estimate(estimate_evaluation(settings, tracking), as_json)
    except (ValueError, DataFormatError) as err:
        raise UserError(str(err)) from None


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

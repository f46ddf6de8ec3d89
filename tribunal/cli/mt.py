"""``tribunal mt ...``: meta-evaluation and metric comparison on data in the mt-metrics-eval layout."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from tribunal.cli.common import Experiment, NoTrack, TrackingUri, data_root, resolve_wmt23, tracking_settings
from tribunal.cli.console import console as make_console
from tribunal.cli.console import line
from tribunal.cli.help_policy import examples

app = typer.Typer(no_args_is_help=True)

DataOption = typer.Option(None, "--data", help="A folder in the mt-metrics-eval layout (default: $TRIBUNAL_DATA/wmt23).")
ProtocolOption = typer.Option(
    None, "--protocol", help="wmt23 | wmt24 | wmt25 (default: the data set's own; wmt24 on WMT23 data is WMT24OnWMT23)."
)
HumanOption = typer.Option(
    None, "--human", metavar="NAME",
    help="The gold scores: human-scores/LP.NAME.seg.score (e.g. mqm, esa-human1, ESA-2); esa: the pair's ESA "
         "scores (esa, esa-human1, else the ESA campaign's ESA-1). Default: the data set's own.",
)
HumanDirOption = typer.Option(
    None, "--human-dir", help="Another folder of LP.NAME.seg.score files aligned with --data (repeatable; default "
    "with --human: $TRIBUNAL_DATA/esa-wmt23, the ESA campaign on WMT23 en-de).",
)
NoDataCacheOption = typer.Option(
    False, "--no-data-cache", help="Parse every score file afresh, neither reading nor filling the parsed-data cache "
    "($TRIBUNAL_CACHE or ~/.cache/tribunal; clear it with `tribunal data cache clear`).",
)


MetricsOption = typer.Option(None, "--metric", help="Base metric name, e.g. COMET (repeatable; default: all).")
LpsOption = typer.Option(None, "--lp", help="Language pair (repeatable; default: all present).")
OutputOption = typer.Option(None, "--output", help="Write the table as TSV here.")
ScoresOption = typer.Option(
    None, "--scores", help="Extra folder laid out like metric-scores/ (LP/NAME-REF.seg.score), e.g. a judge's --out."
)
SignificanceOption = typer.Option(
    0, "--significance", min=0, help="K paired permutation draws for significance clusters (0: none; WMT uses 1000)."
)
CoverageLimitedOption = typer.Option(
    False, "--coverage-limited",
    help="Score a metric that misses rated cells (or a .sys.score) on the cells it covers, marked as such.",
)
DegradedOption = typer.Option(
    "include", "--degraded", metavar="include|exclude",
    help="exclude: leave out the cells a tribunal judge run marked degraded (scored with a fallback; "
         "NAME-REF.degraded.json beside its scores), to see whether the fallbacks move the table.",
)
TaskOption = typer.Option(
    "primary", "--task", metavar="primary|error-free",
    help="primary: the protocol's table; error-free: WMT26's detection of error-free segments "
         "(binary; gold: ESA score >= --gold-threshold and no error span, MQM: no error).",
)


@app.command("meta-eval", epilog=examples(
    "tribunal mt meta-eval",
    "tribunal mt meta-eval --metric COMET --metric BLEU --lp zh-en --output table.tsv",
    "tribunal mt meta-eval --protocol wmt24 --significance 1000 --no-track"))
def meta_eval(
    data: Optional[Path] = DataOption,
    metric: Optional[List[str]] = MetricsOption,
    lp: Optional[List[str]] = LpsOption,
    output: Optional[Path] = OutputOption,
    scores: Optional[List[Path]] = ScoresOption,
    protocol: Optional[str] = ProtocolOption,
    significance: int = SignificanceOption,
    seed: int = typer.Option(1234, "--seed", help="Seed of the significance draws."),
    coverage_limited: bool = CoverageLimitedOption,
    no_data_cache: bool = NoDataCacheOption,
    degraded: str = DegradedOption,
    human: Optional[str] = HumanOption,
    human_dir: Optional[List[Path]] = HumanDirOption,
    task: str = TaskOption,
    gold_threshold: float = typer.Option(85.0, "--gold-threshold", help="error-free gold: ESA score at least this."),
    tracking_uri: Optional[str] = TrackingUri,
    no_track: bool = NoTrack,
    experiment: str = Experiment,
) -> None:
    """A shared task's primary meta-evaluation table.

    WMT23: system-level pairwise accuracy, Pearson and segment-level acc-t per language pair;
    WMT24/25: SPA and acc_eq. Every metric present is scored unless --metric names some;
    --significance adds WMT's significance clusters. The run is logged to MLflow.
    """
    from tribunal.eval.meta.meta_eval_job import run_meta_eval  # heavy: pulls in pandas, pyarrow
    from tribunal.data.output_paths import writable_file  # startup: kept out of `tribunal --help`

    settings = tracking_settings(tracking_uri, no_track, experiment)
    if output:
        writable_file(output, "--output")
    if task not in ("primary", "error-free"):
        raise typer.BadParameter(f"{task!r}: use primary or error-free", param_hint="--task")
    dirs = _human_dirs(human, human_dir)
    if task == "error-free":
        from tribunal.cli.mt_error_free import error_free_table  # startup: kept out of `tribunal --help`

        error_free_table(resolve_wmt23(data), lp or None, human, dirs, tuple(scores or ()), metric or None,
                         gold_threshold, significance or 1000, seed, output, settings)
        return
    result = run_meta_eval(resolve_wmt23(data), metric or None, lp or None, settings, tuple(scores or ()),
                           protocol, significance, seed, coverage_limited, data_cache=not no_data_cache,
                           degraded=_include_or_exclude(degraded), human=human, human_dirs=dirs)
    _print_meta_eval(result, significance, seed, coverage_limited, output, settings)


def _print_meta_eval(result, significance: int, seed: int, coverage_limited: bool, output: Optional[Path],
                     settings) -> None:
    """The table, its notes and problems, where it was written, its signature and MLflow run."""
    from rich.markup import escape  # startup: kept out of `tribunal --help`

    from tribunal.cli.tables import print_meta_table  # startup: kept out of `tribunal --help`
    from tribunal.eval.meta.report import write_tsv  # heavy: pulls in pandas, pyarrow

    console, errors = make_console(), make_console(stderr=True)
    title = result.protocol.title
    if significance:
        title += f"; (rank) = significance cluster, {significance} draws, seed {seed}"
    if coverage_limited:
        title += "; COVERAGE-LIMITED: rows with coverage < 1 are scored on the cells they cover"
    print_meta_table(console, result.table, title)
    for note in result.notes:
        errors.print(f"[cyan]note:[/cyan] {escape(note)}")
    for problem in result.problems():
        errors.print(f"[yellow]not scored:[/yellow] {escape(problem)}")
    if output:
        write_tsv(result.table, output)
        line(console, f"table written to {output}")
    line(console, f"signature: {result.signature}")
    if result.run_id:
        line(console, f"MLflow run {result.run_id}; see it with: {settings.ui_command()}")


@app.command("compare", epilog=examples("tribunal mt compare COMET BLEU",
                                        "tribunal mt compare COMET BLEU --lp zh-en --samples 1000 --seed 7"))
def compare(
    metric_a: str = typer.Argument(..., help="First base metric name."),
    metric_b: str = typer.Argument(..., help="Second base metric name."),
    data: Optional[Path] = DataOption,
    lp: Optional[List[str]] = typer.Option(None, "--lp", help="Language pair (repeatable; default: all present)."),
    samples: int = typer.Option(1000, "--samples", min=10, help="Permutation / bootstrap resamples."),
    seed: int = typer.Option(1234, "--seed", help="Random seed (results are reproducible)."),
    protocol: Optional[str] = ProtocolOption,
    no_data_cache: bool = NoDataCacheOption,
    tracking_uri: Optional[str] = TrackingUri,
    no_track: bool = NoTrack,
    experiment: str = Experiment,
) -> None:
    """Paired significance test of metric A against metric B.

    On every task of the protocol (WMT23's ten; WMT24/25: SPA and acc_eq): the paired permutation
    p-value and a bootstrap interval of the difference. The run is logged to MLflow.
    """
    from tribunal.cli.tables import print_meta_table  # startup: kept out of `tribunal --help`
    from tribunal.eval.meta.compare_job import run_compare  # heavy: pulls in pandas, pyarrow

    settings = tracking_settings(tracking_uri, no_track, experiment)
    result = run_compare(resolve_wmt23(data), metric_a, metric_b, lp or None, samples, seed, settings, protocol,
                         data_cache=not no_data_cache)
    console = make_console()
    print_meta_table(console, result.table,
                     f"{metric_a} vs {metric_b}: paired permutation test ({samples} samples, seed {seed})")
    line(console, f"signature: {result.signature}")
    if result.run_id:
        line(console, f"MLflow run {result.run_id}; see it with: {settings.ui_command()}")

from tribunal.cli.mt_evaluate import EPILOG as EVALUATE_EPILOG  # noqa: E402
from tribunal.cli.mt_evaluate import evaluate  # noqa: E402

app.command("evaluate", epilog=EVALUATE_EPILOG)(evaluate)

from tribunal.cli.mt_agreement import EPILOG as AGREEMENT_EPILOG  # noqa: E402
from tribunal.cli.mt_agreement import agreement  # noqa: E402

app.command("agreement", epilog=AGREEMENT_EPILOG)(agreement)

from tribunal.cli.mt_span_eval import EPILOG as SPAN_EVAL_EPILOG  # noqa: E402
from tribunal.cli.mt_span_eval import span_eval  # noqa: E402

app.command("span-eval", epilog=SPAN_EVAL_EPILOG)(span_eval)

from tribunal.cli.mt_judges import EPILOG as JUDGES_EPILOG  # noqa: E402
from tribunal.cli.mt_judges import judges  # noqa: E402

app.command("judges", epilog=JUDGES_EPILOG)(judges)


def _human_dirs(human: Optional[str], given: Optional[List[Path]]) -> tuple[Path, ...]:
    """``--human-dir`` folders; by default, with ``--human``, the ESA campaign's ``$TRIBUNAL_DATA/esa-wmt23``."""
    if given:
        return tuple(given)
    root = data_root()
    campaign = root / "esa-wmt23" if root is not None else None
    return (campaign,) if human and campaign is not None and campaign.is_dir() else ()


def _include_or_exclude(value: str) -> str:
    """``--degraded``'s value, or a one-line usage error."""
    if value not in ("include", "exclude"):
        raise typer.BadParameter(f"{value!r}: use include or exclude", param_hint="--degraded")
    return value

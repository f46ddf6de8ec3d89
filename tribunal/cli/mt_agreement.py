"""``tribunal mt agreement``: how well raters agree with each other (the human ceiling), and a judge with them."""

from __future__ import annotations

from pathlib import Path
from typing import Any, List, Optional

import typer

from tribunal.cli.common import Experiment, NoTrack, TrackingUri, tracking_settings
from tribunal.cli.console import console as make_console
from tribunal.cli.console import line
from tribunal.cli.errors import UserError
from tribunal.cli.help_policy import examples
from tribunal.cli.numbers import DECIMALS, number
from tribunal.cli.common import resolve_wmt23

EPILOG = examples(
    "tribunal mt agreement --lp zh-en",
    "tribunal mt agreement --lp zh-en --judge tribunal-out/mt/GEMBA-MQM_zh-en_gpt-4o-mini-1a2b3c4d",
    "tribunal mt agreement --data ~/.tribunal/data/wmt25 --lp en-de_DE --human esa-human1 --human esa-human2",
    "tribunal mt agreement --ratings ratings.jsonl --scale mqm --judge judge.jsonl --output agreement.tsv")


DataOption: Optional[Path] = typer.Option(
    None, "--data", help="A folder in the mt-metrics-eval layout (default: $TRIBUNAL_DATA/wmt23).")
LpOption: Optional[str] = typer.Option(None, "--lp",
                                       help="Language pair whose raters to compare, e.g. zh-en (with --data).")
HumanOption: Optional[List[str]] = typer.Option(
    None, "--human", metavar="NAME", help="A rater: human-scores/LP.NAME.seg.rating or .seg.score, e.g. mqm.rater1 or "
    "esa-human2 (repeatable; default: the pair's rating files, else its NAME-human1, NAME-human2 score files).")
RatingsOption: Optional[List[Path]] = typer.Option(
    None, "--ratings", metavar="FILE", help='Your ratings instead of a WMT layout: JSON lines {"item": ..., '
    '"rater": ..., "score": ...} (repeatable; score null = not rated).')
JudgeOption: Optional[Path] = typer.Option(
    None, "--judge", metavar="FILE_OR_DIR", help="The judge: a `tribunal mt evaluate` output folder, a metric's "
    ".seg.score file, or (with --ratings) a JSONL file of one rater.")
ScaleOption: Optional[str] = typer.Option(
    None, "--scale", help="The raters' scale: mqm | esa | other (default: mqm for rating files and mqm* scores, "
    "esa for esa* scores, other for --ratings). Bands need mqm or esa.")
JudgeScaleOption: Optional[str] = typer.Option(
    None, "--judge-scale", help="The judge's scale: mqm | esa | other (default: mqm for a tribunal folder, esa for "
    "a GEMBA-ESA one, other for a file). Alpha and kappa need the raters' scale or a convertible one.")
SamplesOption: int = typer.Option(1000, "--samples", min=10, help="Bootstrap draws over items for the 95% intervals.")
SeedOption: int = typer.Option(1234, "--seed", help="Seed of the bootstrap draws (results are reproducible).")
KappaWeightsOption: str = typer.Option("quadratic", "--kappa-weights", help="Cohen's weighted kappa over the bands: "
                                       "quadratic (default) | linear disagreement weights.")
OutputOption: Optional[Path] = typer.Option(None, "--output", help="Write the table as TSV here.")


def agreement(
    data: Optional[Path] = DataOption,
    lp: Optional[str] = LpOption,
    human: Optional[List[str]] = HumanOption,
    ratings: Optional[List[Path]] = RatingsOption,
    judge: Optional[Path] = JudgeOption,
    scale: Optional[str] = ScaleOption,
    judge_scale: Optional[str] = JudgeScaleOption,
    samples: int = SamplesOption,
    seed: int = SeedOption,
    kappa_weights: str = KappaWeightsOption,
    output: Optional[Path] = OutputOption,
    tracking_uri: Optional[str] = TrackingUri,
    no_track: bool = NoTrack,
    experiment: str = Experiment,
) -> None:
    """Agreement of raters (the human ceiling) and of a judge.

    Over the items rated by two or more raters (and scored by the judge): every pair of raters and
    the judge against each rater, with Krippendorff's alpha (interval on the scores; ordinal on the MQM
    bands none / minor / major / critical), Cohen's weighted kappa on the bands, Pearson's r and Kendall's
    tau-b, each with a 95% bootstrap interval over items; the raters' mean pairwise agreement, and the
    judge's mean over the raters as a share of it. The run is logged to MLflow.
    """
    from tribunal.data.output_paths import writable_file  # startup: kept out of `tribunal --help`
    from tribunal.eval.meta.agreement_job import run_agreement  # heavy: pulls in pandas, pyarrow
    from tribunal.eval.meta.agreement_stats import KAPPA_WEIGHTS  # heavy: pulls in numpy
    from tribunal.eval.meta.report import write_tsv  # heavy: pulls in pandas, pyarrow

    if kappa_weights not in KAPPA_WEIGHTS:
        raise UserError(f"--kappa-weights {kappa_weights}: choose from {', '.join(KAPPA_WEIGHTS)}")
    request = agreement_request(data, lp, human, ratings)
    request.judge, request.scale, request.judge_scale = judge, scale, judge_scale
    request.samples, request.seed, request.kappa_weights = samples, seed, kappa_weights
    settings = tracking_settings(tracking_uri, no_track, experiment)
    if output:
        writable_file(output, "--output")
    run = run_agreement(request, settings)
    console, errors = make_console(), make_console(stderr=True)
    print_agreement(console, run.result, f"{run.source}: ")
    for note in run.result.notes:
        line(errors, f"note: {note}")
    if output:
        write_tsv(run.table, output)
        line(console, f"table written to {output}")
    line(console, f"signature: {run.signature}")
    if run.run_id:
        line(console, f"MLflow run {run.run_id}; see it with: {settings.ui_command()}")


def agreement_request(data: Optional[Path], lp: Optional[str], human: Optional[List[str]],
                      ratings: Optional[List[Path]]) -> Any:
    """Whose ratings to compare: your own ``--ratings``, or the raters of ``--lp`` in a WMT layout (``--data``)."""
    from tribunal.eval.meta.agreement_job import AgreementRequest  # heavy: pulls in pandas, pyarrow

    if ratings:
        given = [o for o, v in (("--data", data), ("--lp", lp), ("--human", human)) if v]
        if given:
            raise UserError(f"{given[0]}: names a WMT layout's raters, but --ratings gives your own (use one or the other)")
        return AgreementRequest(ratings=list(ratings))
    if not lp:
        raise UserError("no language pair: pass --lp LP (e.g. zh-en), or your own --ratings FILE")
    return AgreementRequest(data=resolve_wmt23(data), lp=lp, humans=list(human or []))


def cell(row, name: str) -> str:
    """``0.4123 [0.3518, 0.4702]``, or ``n/a (why)``."""
    point = row.point(name)
    text = number(point, row.reasons.get(name, "undefined"))
    if text.startswith("n/a"):
        return text
    low, high = row.interval(name)
    bounds = "n/a" if low != low else f"{low:.{DECIMALS}f}, {high:.{DECIMALS}f}"
    return f"{text} [{bounds}]"


def ceiling_summary_lines(ceiling: dict) -> list[str]:
    """:func:`ceiling_lines` from the summary's ``human_ceiling`` (:func:`tribunal.eval.mt.ceiling.ceiling_summary`)."""
    def summary_cell(side: dict | None) -> str:
        if not side:
            return "n/a"
        text = number(side.get("value"), side.get("why_undefined") or "undefined")
        if text.startswith("n/a"):
            return text
        low, high = side.get("interval") or (None, None)
        bounds = "n/a" if low is None or high is None else f"{low:.{DECIMALS}f}, {high:.{DECIMALS}f}"
        return f"{text} [{bounds}]"

    statistics = [k for k in ceiling if k not in ("items", "raters", "samples", "seed")]
    lines = [f"human ceiling: {len(ceiling['raters'])} raters on the {ceiling['items']} judged items two or more of "
             f"them rated (95% bootstrap intervals, {ceiling['samples']} draws over items, seed {ceiling['seed']}; "
             "`tribunal mt agreement --judge OUT` shows every pair):"]
    for name in statistics:
        sides = ceiling[name]
        lines.append(f"  {name}: raters' mean pairwise {summary_cell(sides.get('raters'))}, judge's mean "
                     f"{summary_cell(sides.get('judge'))}, share {summary_cell(sides.get('share'))}")
    return lines


def print_agreement(console, result, prefix: str = "") -> None:
    """The agreement table, fitted to the console, under a title that says how it was computed."""
    from tribunal.cli.tables import Column, WideTable, print_wide  # startup: kept out of `tribunal --help`

    kappa = result.statistics[2].split("_", 1)[1]
    title = (f"{prefix}agreement on {len(result.items)} items rated by {len(result.raters)} raters "
             f"[95% bootstrap percentile interval: {result.samples} draws over items, seed {result.seed}]; "
             f"kappa: Cohen's, {kappa} weights over the bands none/minor/major/critical; Kendall: tau-b")
    keys = [Column("comparison", [r.label for r in result.rows], numeric=False),
            Column("items", [str(r.items) for r in result.rows])]
    columns = [Column(name, [cell(r, name) for r in result.rows], numeric=False) for name in result.statistics]
    print_wide(console, WideTable(title, keys, columns))


def ceiling_lines(result) -> list[str]:
    """``mt evaluate``'s summary of the human ceiling: per statistic the raters', the judge's and the share."""
    raters, judge, share = (result.row(k) for k in ("raters: mean pairwise", "judge: mean over raters", "judge / raters"))
    lines = [f"human ceiling: {len(result.raters)} raters on the {len(result.items)} judged items two or more of them "
             f"rated (95% bootstrap intervals, {result.samples} draws over items, seed {result.seed}; "
             "`tribunal mt agreement --judge OUT` shows every pair):"]
    for name in result.statistics:
        lines.append(f"  {name}: raters' mean pairwise {cell(raters, name)}, judge's mean {cell(judge, name)}, "
                     f"share {cell(share, name)}")
    return lines

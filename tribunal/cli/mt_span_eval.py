"""``tribunal mt span-eval``: score any span file against any human span file (EM, MP, MPP, WMT25)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, List, Optional

import typer
import json

from tribunal.cli.console import console as make_console
from tribunal.cli.console import line
from tribunal.cli.errors import UserError
from tribunal.cli.help_policy import examples
from tribunal.cli.numbers import count, number, p_value

EPILOG = examples(
    "tribunal mt span-eval --predicted judge.jsonl --gold gold.jsonl",
    "tribunal mt span-eval --predicted tribunal-out/mt/GEMBA-MQM_zh-en_gpt-4o-mini-1a2b3c4d "
    "--gold ~/.tribunal/data/wmt23/human-scores/zh-en.mqm.rater1.seg.rating --measure wmt25",
    "tribunal mt span-eval --predicted a.tsv --predicted b.tsv --gold gold.tsv --averaging macro --output spans.json",
    "tribunal mt span-eval --predicted judge.jsonl --gold esa.jsonl --severity-weights minor=1,major=5 --side both")

FORMAT_HELP = "jsonl | esa | mqm-tsv | wmt25-tsv | wmt-rating | tribunal (default: told from the file)"


PredictedOption: List[Path] = typer.Option(..., "--predicted", metavar="FILE", help="A judge's spans (repeatable: "
                                           "several judges are tested against each other and clustered).")
GoldOption: List[Path] = typer.Option(..., "--gold", metavar="FILE", help="Human spans (repeatable: several raters; a "
                                      "judge is scored against each, pooled, beside the raters' own ceiling).")
MeasureOption: str = typer.Option("mpp", "--measure", help="em | mp | mpp | wmt25 (character counts).")
MatchingOption: str = typer.Option("one-to-one", "--matching", help="one-to-one | many-to-many.")
AssignmentOption: str = typer.Option("optimal", "--assignment", help="optimal | greedy (one-to-one matching).")
AveragingOption: str = typer.Option("micro", "--averaging", help="micro | macro over segments.")
SeverityPenaltyOption: float = typer.Option(0.0, "--severity-penalty", min=0.0, max=1.0,
                                            help="Credit x (1 - X) for a matched pair of different severities.")
SeverityWeightsOption: Optional[str] = typer.Option(
    None, "--severity-weights", metavar="SEV=W,...",
    help="MPP only: a span counts its severity's weight and a pair earns the lighter of its two, e.g. minor=1,major=5.")
SideOption: str = typer.Option("target", "--side", help="target | source | both (spans match only on their side).")
PredictedFormatOption: Optional[str] = typer.Option(None, "--predicted-format", help=FORMAT_HELP)
GoldFormatOption: Optional[str] = typer.Option(None, "--gold-format", help=FORMAT_HELP)
GoldRaterOption: Optional[str] = typer.Option(None, "--gold-rater", metavar="NAME",
                                              help="One rater of an MQM TSV (rater column) or ESA file (annotator).")
SamplesOption: int = typer.Option(1000, "--samples", min=10, help="Permutation and bootstrap draws (several judges).")
SeedOption: int = typer.Option(1234, "--seed", help="Seed of the draws.")
OutputOption: Optional[Path] = typer.Option(None, "--output", metavar="FILE.json",
                                            help="Write precision, recall, f, the counts and the settings as JSON.")


def span_eval(
    predicted: List[Path] = PredictedOption,
    gold: List[Path] = GoldOption,
    measure: str = MeasureOption,
    matching: str = MatchingOption,
    assignment: str = AssignmentOption,
    averaging: str = AveragingOption,
    severity_penalty: float = SeverityPenaltyOption,
    severity_weights: Optional[str] = SeverityWeightsOption,
    side: str = SideOption,
    predicted_format: Optional[str] = PredictedFormatOption,
    gold_format: Optional[str] = GoldFormatOption,
    gold_rater: Optional[str] = GoldRaterOption,
    samples: int = SamplesOption,
    seed: int = SeedOption,
    output: Optional[Path] = OutputOption,
) -> None:
    """Span P, R and F (EM, MP, MPP, WMT25) against human error spans.

    The default is the measure Perrella et al. (2026) recommend: micro-averaged MPP (partial overlap,
    partial credit) with an optimal one-to-one matching, on target-side spans. Segments are those in
    both files. See docs/reference/span-eval.md for the definitions and the choices made.
    """
    from tribunal.data.atomic import write_text_atomically  # startup: kept out of `tribunal --help`
    from tribunal.data.errors import DataFormatError  # startup: kept out of `tribunal --help`
    from tribunal.data.output_paths import writable_file  # startup: kept out of `tribunal --help`
    from tribunal.eval.meta.spans.job import SpanEvalRequest, run_span_eval  # heavy: pulls in pandas, scipy

    options = span_options(measure, matching, assignment, averaging, severity_penalty, severity_weights, side)
    if output:
        writable_file(output, "--output")
    request = SpanEvalRequest(list(predicted), list(gold), options, predicted_format, gold_format, gold_rater,
                              samples, seed)
    try:
        result = run_span_eval(request)
    except (DataFormatError, ValueError) as err:
        raise UserError(str(err)) from None
    print_result(make_console(), result)
    if output:
        write_text_atomically(output, json.dumps(result, indent=2, default=list) + "\n")


def span_options(measure: str, matching: str, assignment: str, averaging: str, severity_penalty: float,
                 severity_weights: Optional[str], side: str) -> Any:
    """The measure's :class:`~tribunal.eval.meta.spans.options.SpanOptions`; a bad value is a one-line error
    naming its option."""
    from pydantic import ValidationError  # heavy: pydantic

    from tribunal.eval.meta.spans.options import SpanOptions, parse_weights  # heavy: pulls in scipy, numpy

    try:
        weights = parse_weights(severity_weights) if severity_weights else None
    except ValueError as err:
        raise UserError(f"--severity-weights: {err}") from None
    try:
        return SpanOptions(measure=measure, matching=matching, assignment=assignment, averaging=averaging,
                           severity_penalty=severity_penalty, severity_weights=weights, side=side)
    except ValidationError as err:
        first = err.errors()[0]
        # a field's own check names the field; the checks across fields (weights vs measure / penalty) name the weights
        flag = "--" + str(first["loc"][0] if first["loc"] else "severity_weights").replace("_", "-")
        raise UserError(f"{flag}: {first['msg'].removeprefix('Value error, ')}") from None


def print_result(console, result: dict) -> None:
    """The judges' P, R and F, the raters' ceiling, the pairwise tests and the clusters."""
    say = lambda text: line(console, text)  # noqa: E731
    say(f"span measure: {result['signature']}")
    for name, s in result["judges"].items():
        say(f"{name}: precision {number(s['precision'])}, recall {number(s['recall'])}, F {number(s['f'])} "
            f"({count(s['segments'])} segment-rater pairs; {count(s['predicted_spans'])} predicted, "
            f"{count(s['gold_spans'])} gold spans; {count(s['dropped_empty'])} empty spans left out; "
            f"{count(s['segments_not_judged'])} rated segments not judged)")
    for name, s in result.get("ceiling", {}).items():
        say(f"  ceiling {name} vs the other raters: precision {number(s['precision'])}, recall "
            f"{number(s['recall'])}, F {number(s['f'])}")
    for t in result.get("tests", []):
        low, high = t["interval"]
        say(f"  {t['a']} - {t['b']}: delta F {number(t['delta'])} [95% {number(low)}, {number(high)}], "
            f"p = {p_value(t['p_value'])} ({t['samples']} permutations)")
    if result.get("ranking"):
        say("  clusters: " + ", ".join(f"{r['rank']}. {r['judge']} ({number(r['f'])})" for r in result["ranking"]))

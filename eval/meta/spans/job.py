"""``tribunal mt span-eval`` without the command line: read the files, score, test, return one JSON-able dict.

Each predicted file (a judge) is scored against the gold file; with several gold files (raters),
against every rater pooled over (segment, rater) pairs, with the raters' own ceiling
(:func:`~tribunal.eval.meta.spans.agreement.rater_ceiling`) beside it. With several judges, every
pair gets a paired permutation test and the judges significance clusters
(:mod:`~tribunal.eval.meta.spans.significance`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tribunal.data.span_files import read_spans
from tribunal.eval.meta.spans.agreement import pair_counts, rater_ceiling
from tribunal.eval.meta.spans.options import SpanOptions, check_severities
from tribunal.eval.meta.spans.scoring import aggregate, countable
from tribunal.eval.meta.spans.significance import clusters, paired_test


@dataclass
class SpanEvalRequest:
    predicted: list[Path]
    gold: list[Path]
    options: SpanOptions = field(default_factory=SpanOptions)
    predicted_format: str | None = None
    gold_format: str | None = None
    gold_rater: str | None = None
    samples: int = 1000
    seed: int = 1234


def judge_names(paths: list[Path]) -> list[str]:
    """Short unique names: the file's stem (a folder's name), or the whole path where stems clash."""
    stems = [p.name if p.is_dir() else p.stem for p in paths]
    return [s if stems.count(s) == 1 else str(p) for s, p in zip(stems, paths)]


def check_files(files: dict[Path, dict[str, list]], options: SpanOptions) -> None:
    """ValueError naming the file and segment of the first span lacking a severity ``options`` need."""
    if options.severity_penalty == 0 and options.severity_weights is None:
        return
    for path, segments in files.items():
        for segment, spans in segments.items():
            check_severities(countable(spans, options.side)[0], options, f"{path.name}: segment {segment}: a ")


def run_span_eval(request: SpanEvalRequest) -> dict:
    options = request.options
    golds = {name: {i: s.spans for i, s in read_spans(p, request.gold_format, request.gold_rater).items()}
             for name, p in zip(judge_names(request.gold), request.gold)}
    judges = {name: {i: s.spans for i, s in read_spans(p, request.predicted_format).items()}
              for name, p in zip(judge_names(request.predicted), request.predicted)}
    check_files(dict(zip(request.gold, golds.values())) | dict(zip(request.predicted, judges.values())), options)
    gold_ids = set().union(*golds.values())
    # the segments every judge judged, so that judges are compared on the same segments
    common = set.intersection(*(set(j) for j in judges.values())) & gold_ids
    counts, result = {}, {"signature": options.signature(), "judges": {}}
    for name, spans in judges.items():
        counts[name] = pair_counts({i: spans[i] for i in sorted(common)}, golds, options)
        score = aggregate(counts[name], options).as_dict()
        score["segments_not_rated"] = len(set(spans) - gold_ids)
        score["segments_not_judged"] = len(gold_ids - set(spans))
        result["judges"][name] = score
    result |= next(iter(result["judges"].values()))  # one judge: its figures at the top level
    if len(golds) > 1:
        result["ceiling"] = {k: v.as_dict() for k, v in rater_ceiling(golds, options).items()}
    if len(judges) > 1:
        names = list(judges)
        result["tests"] = [{"a": a, "b": b, **vars(paired_test(counts[a], counts[b], options.averaging,
                                                                 request.samples, request.seed))}
                           for x, a in enumerate(names) for b in names[x + 1:]]
        ranking = clusters(counts, options.averaging, request.samples, request.seed)
        result["ranking"] = [{"judge": j, "f": f, "rank": r} for j, f, r in zip(ranking.judges, ranking.f, ranking.ranks)]
    return result

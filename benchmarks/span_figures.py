"""The span figures of docs/reference/span-eval.md: MPP, the WMT25 measure and the legacy char-F1.

Rows (there is no real LM offline, so no LM judge's figure can be measured here):

- WMT23 zh-en, eight raters (``human-scores/zh-en.mqm.raterN.seg.rating``): each rater scored as a
  judge against the other seven on the cells all eight rated ("rater i vs the others"), and their mean,
  the human ceiling; beside them two trivial offline judges scored against all eight raters the same
  way: ``empty`` (marks nothing) and ``whole`` (one major span over the whole translation); and, with
  ``--tribunal DIR`` (repeatable), a ``tribunal mt evaluate`` output folder (``errors.jsonl``), scored
  against every rater on every cell of the run that rater rated;
- TED MQM zh-en and en-de (``mqm-ted/mqm_ted_*.tsv``): every cell has one rater, so there is no
  inter-rater ceiling; the trivial judges against that rater.

All figures: micro averaging, optimal one-to-one matching, target side, no severity penalty
(``SpanOptions`` defaults, measure changed; signature ``v:2``, the measures as the authors' code
computes them: optimal MPP maximises each segment's F); legacy char-F1: :mod:`tribunal.eval.meta.spans.legacy`.

    python benchmarks/span_figures.py [--data $TRIBUNAL_DATA] [--tribunal OUT_DIR ...]
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from tribunal.data.mtme import LanguagePair
from tribunal.data.span_files import read_spans
from tribunal.core.spans import span
from tribunal.eval.meta.spans import SpanOptions
from tribunal.eval.meta.spans.agreement import pair_counts
from tribunal.eval.meta.spans.legacy import legacy_scores
from tribunal.eval.meta.spans.scoring import aggregate

MEASURES = ("mpp", "wmt25")


def legacy_char_f1(candidate, raters, skip=None) -> float:
    cells = [([s for s in candidate[i] if s.side == "target"], [s for s in gold[i] if s.side == "target"])
             for name, gold in raters.items() if name != skip for i in gold if i in candidate]
    return legacy_scores(cells)["char_f1"]


def row(label, candidate, raters, skip=None) -> str:
    figures = []
    for measure in MEASURES:
        options = SpanOptions(measure=measure)
        score = aggregate(pair_counts(candidate, raters, options, skip), options)
        figures.append(f"{score.precision:.4f} / {score.recall:.4f} / {score.f:.4f}")
    pairs = len(pair_counts(candidate, raters, SpanOptions(), skip))
    return f"| {label} | {pairs} | " + " | ".join(figures) + f" | {legacy_char_f1(candidate, raters, skip):.4f} |"


def trivial_judges(ids, target_of) -> dict[str, dict]:
    return {"empty (marks nothing)": {i: () for i in ids},
            "whole (one major span over the translation)": {i: (span(0, len(target_of(i)), "major"),) for i in ids}}


def wmt23(data: Path, tribunal: list[Path]) -> list[str]:
    pair = LanguagePair(data / "wmt23", "zh-en")
    raters = {n: {k: v.spans for k, v in read_spans(data / "wmt23" / "human-scores" / f"zh-en.{n}.seg.rating").items()}
              for n in pair.rating_names}
    everything = raters
    shared = set.intersection(*(set(r) for r in raters.values()))
    raters = {n: {i: r[i] for i in sorted(shared)} for n, r in raters.items()}
    outputs = {}

    def target_of(i):
        system, seg = i.rsplit("|", 1)
        if system not in outputs:
            outputs[system] = pair.system_output(system)
        return outputs[system][int(seg)]

    lines = [f"WMT23 zh-en: {len(shared)} cells rated by all {len(raters)} raters", "",
             "| row | (cell, rater) pairs | MPP P / R / F | WMT25 P / R / F | legacy char-F1 |", "|---|---|---|---|---|"]
    for name, spans in raters.items():
        lines.append(row(f"{name} vs the other raters", spans, raters, skip=name))
    ceiling = {m: [] for m in (*MEASURES, "char")}
    for name, spans in raters.items():
        for m in MEASURES:
            ceiling[m].append(aggregate(pair_counts(spans, raters, SpanOptions(measure=m), name), SpanOptions(measure=m)).f)
        ceiling["char"].append(legacy_char_f1(spans, raters, name))
    mean = lambda xs: sum(xs) / len(xs)  # noqa: E731
    lines.append(f"| **ceiling: mean of the raters** | | F {mean(ceiling['mpp']):.4f} | F {mean(ceiling['wmt25']):.4f} "
                 f"| {mean(ceiling['char']):.4f} |")
    for label, judge in trivial_judges(sorted(shared), target_of).items():
        lines.append(row(f"{label} vs the 8 raters", judge, raters))
    for folder in tribunal:  # a run covers few of the 288 cells: scored on every cell a rater rated
        judged = {k: v.spans for k, v in read_spans(folder).items()}
        lines.append(row(f"tribunal output {folder.name} vs each rater that rated its cells", judged, everything))
    return lines


def ted(data: Path, lp: str) -> list[str]:
    table = read_spans(data / "mqm-ted" / f"mqm_ted_{lp.replace('-', '')}.tsv")
    gold = {"ted": {k: v.spans for k, v in table.items()}}
    lines = [f"TED MQM {lp}: {len(table)} cells, one rater each (no inter-rater ceiling)", "",
             "| row | cells | MPP P / R / F | WMT25 P / R / F | legacy char-F1 |", "|---|---|---|---|---|"]
    for label, judge in trivial_judges(sorted(table), lambda i: table[i].target).items():
        lines.append(row(f"{label} vs the TED rater", judge, gold))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("TRIBUNAL_DATA", "~/.tribunal/data")).expanduser())
    parser.add_argument("--tribunal", type=Path, action="append", default=[])
    args = parser.parse_args()
    for block in (wmt23(args.data, args.tribunal), ted(args.data, "zh-en"), ted(args.data, "en-de")):
        print("\n".join(block) + "\n")


if __name__ == "__main__":
    main()

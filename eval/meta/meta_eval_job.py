"""``tribunal mt meta-eval`` as a function: load, compute the WMT23 table, track the run."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from tribunal.eval.data.errors import DataFormatError
from tribunal.eval.data.mtme import LanguagePair, language_pairs
from tribunal.eval.meta.report import table_to_tsv
from tribunal.eval.meta.wmt23 import LpResult, wmt23_table
from tribunal.eval.tracking.mlflow_run import TrackingSettings, tracked_run
from tribunal.eval.tracking.signature import files_hash, signature


@dataclass
class MetaEvalResult:
    table: pd.DataFrame
    details: dict[str, dict[str, LpResult]]
    signature: str
    run_id: str | None

    def problems(self) -> list[str]:
        """Human-readable notes on metrics that could not be scored on some task."""
        return [
            f"{metric} {lp}: {problem}"
            for metric, per_lp in self.details.items()
            for lp, result in per_lp.items()
            for problem in result.problems
        ]


def load_pairs(data: Path, lps: list[str] | None, scores: tuple[Path, ...] = ()) -> dict[str, LanguagePair]:
    """Open the requested language pairs (all present ones by default).

    ``scores`` are extra folders laid out like ``metric-scores/`` (e.g. a judge's output).
    """
    present = language_pairs(data)
    lps = lps or present
    unknown = [lp for lp in lps if lp not in present]
    if unknown:
        raise DataFormatError(data / "sources", None, f"no language pair {', '.join(unknown)} (have {', '.join(present)})")
    return {lp: LanguagePair(data, lp, extra_metric_roots=scores) for lp in lps}


def used_files(pairs: dict[str, LanguagePair], metrics: list[str]) -> list[Path]:
    """Every file the table reads: gold scores and the resolved metric score files."""
    files = []
    for pair in pairs.values():
        files += [pair._human("seg.score"), pair._human("sys.score")]
        for metric in metrics:
            full = pair.resolve_metric(metric)
            if full:
                files += [p for p in (pair.metric_file(full, "seg"), pair.metric_file(full, "sys")) if p]
    return files


def run_meta_eval(
    data: Path, metrics: list[str] | None, lps: list[str] | None, tracking: TrackingSettings,
    scores: tuple[Path, ...] = (),
) -> MetaEvalResult:
    """Compute the WMT23 table and log it as one MLflow run."""
    import time

    started = time.time()
    pairs = load_pairs(data, lps, scores)
    table, details = wmt23_table(pairs, metrics)
    names = list(details)
    data_tag = f"{data.name}/{','.join(sorted(pairs))}@{files_hash(used_files(pairs, names))}"
    sig = signature({"task": "wmt23-primary", "metrics": len(names), "data": data_tag})
    params = {"data": str(data), "lps": ",".join(sorted(pairs)), "metrics": ",".join(names),
              "scores": ",".join(map(str, scores))}
    from tribunal.eval.tracking.datasets import log_input, pairs_table

    name = f"meta-eval | {len(names)} metrics | {data.name} {','.join(sorted(pairs))}"
    with tracked_run(tracking, name, params, {"tribunal.command": "mt meta-eval"}, sig, started=started) as run:
        log_input(run, data_tag.split("@")[0], data_tag.split("@")[1], data, pairs_table(pairs), "evaluation")
        for row in table.to_dict("records"):
            run.log_metrics({f"{row['metric']}/{k}": v for k, v in row.items() if k != "metric"})
        run.log_text(table_to_tsv(table), "meta_eval.tsv")
        run.log_table(table, "meta_eval.json")
        result = MetaEvalResult(table, details, sig, run.run_id)
        if result.problems():
            run.log_text("\n".join(result.problems()) + "\n", "problems.txt")
    return result

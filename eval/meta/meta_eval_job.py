"""``tribunal mt meta-eval`` as a function: load, compute a protocol's table, rank, track the run."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import time

from tribunal.errors import UserError
from tribunal.data.conventions import conventions_for
from tribunal.data.errors import DataFormatError
from tribunal.data.mtme import LanguagePair, language_pairs
from tribunal.data.score_cache import ScoreCache
from tribunal.eval.meta.blas_threads import one_blas_thread
from tribunal.eval.meta.clusters import Ranking, significance
from tribunal.eval.meta.lp_tasks import LpResult
from tribunal.eval.meta.protocols import Protocol, get_protocol
from tribunal.eval.meta.report import table_to_tsv, with_ranks
from tribunal.eval.meta.table import meta_eval_table
from tribunal.eval.tracking.mlflow_run import TrackingSettings, tracked_run
from tribunal.eval.tracking.run_signatures import MetaEvalSignature
from tribunal.eval.tracking.signature import files_hash
from tribunal.eval.tracking.datasets import log_input, pairs_table
from tribunal.eval.meta.cluster_plot import clusters_figure


@dataclass
class MetaEvalResult:
    table: pd.DataFrame
    details: dict[str, dict[str, LpResult]]
    signature: str
    run_id: str | None
    protocol: Protocol | None = None
    rankings: dict[str, Ranking] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    coverage_limited: bool = False

    def problems(self) -> list[str]:
        """Human-readable notes on metrics that could not be scored on some task."""
        return [
            f"{metric} {lp}: {problem}"
            for metric, per_lp in self.details.items()
            for lp, result in per_lp.items()
            for problem in result.problems
        ]


def default_lps(data: Path) -> list[str]:
    """The data set's primary pairs if present, else every pair with gold score files."""
    present = language_pairs(data)
    primary = [lp for lp in conventions_for(data).primary_lps if lp in present]
    if primary:
        return primary
    scored = {p.name.split(".", 1)[0] for p in (data / "human-scores").glob("*.seg.score")}
    return [lp for lp in present if lp in scored] or present


def _check_score_folders(scores: tuple[Path, ...], lps: list[str]) -> None:
    for folder in scores:
        if not folder.is_dir():
            raise UserError(f"--scores {folder}: no such folder")
        if not any((folder / lp).is_dir() for lp in lps):
            raise UserError(f"--scores {folder}: holds no {' / '.join(lps)} folder (expected a folder laid out "
                            f"like metric-scores/: LP/NAME-REF.seg.score)")


def load_pairs(data: Path, lps: list[str] | None, scores: tuple[Path, ...] = (),
               cache: ScoreCache | None = None, exclude_degraded: bool = False, human: str | None = None,
               human_dirs: tuple[Path, ...] = ()) -> dict[str, LanguagePair]:
    """Open the requested language pairs (the data set's primary ones by default).

    ``scores`` are extra folders laid out like ``metric-scores/`` (e.g. a judge's output);
    ``cache`` keeps the parsed score files across runs; ``exclude_degraded`` leaves out the cells a
    tribunal run marked degraded (``NAME-REF.degraded.json``); ``human`` names the gold scores
    (``esa``: the pair's ESA file, :mod:`~tribunal.data.esa_gold`), searched in ``human-scores/``
    and then in ``human_dirs``.
    """
    present = language_pairs(data)
    lps = lps or default_lps(data)
    unknown = [lp for lp in lps if lp not in present]
    if unknown:
        raise DataFormatError(data / "sources", None, f"no language pair {', '.join(unknown)} (have {', '.join(present)})")
    _check_score_folders(tuple(scores), lps)
    return {lp: LanguagePair(data, lp, extra_metric_roots=scores, cache=cache, exclude_degraded=exclude_degraded,
                             gold=human, human_dirs=tuple(human_dirs)) for lp in lps}


def check_metrics(pairs: dict[str, LanguagePair], metrics: list[str] | None) -> None:
    """A requested metric with scores in none of the pairs is an error, never a blank row."""
    for metric in metrics or ():
        if not any(pair.resolve_metric(metric) for pair in pairs.values()):
            refs = sorted({pair.conventions.std_ref(lp) for lp, pair in pairs.items()})
            raise UserError(f"--metric {metric}: no {metric}-{'/'.join(refs)} or {metric}-src score files "
                            f"in {', '.join(sorted(pairs))}")


def used_files(pairs: dict[str, LanguagePair], metrics: list[str], need_sys: bool = True) -> list[Path]:
    """Every file the table reads: gold scores and the resolved metric score files (the system-level
    ones only when the protocol reads them)."""
    levels = ("seg", "sys") if need_sys else ("seg",)
    files = []
    for pair in pairs.values():
        files += [p for p in (pair._human(f"{level}.score") for level in levels) if p.is_file()]
        for metric in metrics:
            full = pair.resolve_metric(metric)
            if full:
                files += [p for p in (pair.metric_file(full, level) for level in levels) if p]
                marks = pair.degraded_marks(full) if pair.exclude_degraded else None
                files += [marks] if marks else []
    return files


def run_meta_eval(
    data: Path, metrics: list[str] | None, lps: list[str] | None, tracking: TrackingSettings,
    scores: tuple[Path, ...] = (), protocol: str | None = None, samples: int = 0, seed: int = 1234,
    coverage_limited: bool = False, data_cache: bool = True, degraded: str = "include",
    human: str | None = None, human_dirs: tuple[Path, ...] = (),
) -> MetaEvalResult:
    """Compute a protocol's table (the data set's own by default), optionally ranked, as one MLflow run.

    ``samples`` > 0 adds significance clusters from that many seeded paired permutation draws;
    ``data_cache`` reads parsed score files from the user's cache (:mod:`score_cache`).
    """
    started = time.time()
    chosen = get_protocol(protocol or conventions_for(data).protocol)
    cache = ScoreCache.default() if data_cache else None
    pairs = load_pairs(data, lps, tuple(scores), cache, exclude_degraded=degraded == "exclude", human=human,
                       human_dirs=human_dirs)
    check_metrics(pairs, metrics)
    with one_blas_thread():
        computed = meta_eval_table(pairs, metrics, chosen, coverage_limited=coverage_limited)
        rankings = significance(computed, samples, seed) if samples else {}
    table = with_ranks(computed.table, rankings) if samples else computed.table
    names = list(computed.details)
    used = files_hash(used_files(pairs, names, chosen.needs_sys_scores), digest_of=cache.sha256 if cache else None)
    data_tag = f"{data.name}/{','.join(sorted(pairs))}@{used}"
    sig = str(MetaEvalSignature(task=f"{chosen.name}-primary", metrics=len(names), data=data_tag,
                                significance=samples or None, seed=seed if samples else None,
                                coverage="limited" if coverage_limited else None,
                                degraded="exclude" if degraded == "exclude" else None))
    params = {"data": str(data), "lps": ",".join(sorted(pairs)), "metrics": ",".join(names), "protocol": chosen.name,
              "scores": ",".join(map(str, scores)), "significance": samples, "seed": seed,
              "coverage_limited": coverage_limited, "degraded": degraded,
              "human": ",".join(sorted({p.gold_name for p in pairs.values()}))}
    name = f"meta-eval | {chosen.name} | {len(names)} metrics | {data.name} {','.join(sorted(pairs))}"
    with tracked_run(tracking, name, params, {"tribunal.command": "mt meta-eval"}, sig, started=started) as run:
        log_input(run, data_tag.split("@")[0], data_tag.split("@")[1], data, pairs_table(pairs), "evaluation")
        numeric = table.astype({c: float for c in table.columns if c != "metric"})  # rank columns: NA -> NaN
        for row in numeric.to_dict("records"):
            run.log_metrics({f"{row['metric']}/{k}": v for k, v in row.items() if k != "metric"})
        run.log_text(table_to_tsv(table), "meta_eval.tsv")
        run.log_table(numeric, "meta_eval.json")
        if rankings and run.run_id:
            run.log_figure(clusters_figure(rankings, f"{chosen.name}: significance clusters ({samples} draws)"),
                           "significance_clusters.png")
        result = MetaEvalResult(table, computed.details, sig, run.run_id, chosen, rankings, computed.notes,
                                coverage_limited)
        if result.problems():
            run.log_text("\n".join(result.problems()) + "\n", "problems.txt")
    return result

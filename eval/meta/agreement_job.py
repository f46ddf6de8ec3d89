"""``tribunal mt agreement`` as a function: read the raters (and the judge), compute, track the run."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from tribunal.errors import UserError
from tribunal.eval.meta.human_ceiling import SCALES, AgreementResult, Ratings, Row, compute_agreement
from tribunal.eval.meta.report import table_to_tsv
from tribunal.eval.tracking.mlflow_run import TrackingSettings, tracked_run
from tribunal.eval.tracking.run_signatures import AgreementSignature
from tribunal.eval.tracking.signature import files_hash
from tribunal.data.judge_scores import read_judge
from tribunal.data.mtme import LanguagePair, language_pairs
from tribunal.data.score_cache import ScoreCache
from tribunal.data.multi_ratings import user_ratings, wmt_raters
from tribunal.eval.tracking.datasets import log_input
from tribunal.eval.tracking.names import slug


@dataclass
class AgreementRequest:
    """What to compare: a WMT layout's raters (``data`` + ``lp``) or user files (``ratings``), and a judge."""

    data: Path | None = None
    lp: str | None = None
    humans: list[str] = field(default_factory=list)
    ratings: list[Path] = field(default_factory=list)
    judge: Path | None = None
    scale: str | None = None
    judge_scale: str | None = None
    samples: int = 1000
    seed: int = 1234
    kappa_weights: str = "quadratic"


@dataclass
class AgreementRun:
    result: AgreementResult
    ratings: Ratings
    table: pd.DataFrame
    signature: str
    run_id: str | None
    source: str


def _check_scale(option: str, value: str | None) -> None:
    if value is not None and value not in SCALES:
        raise UserError(f"{option} {value}: choose from {', '.join(SCALES)}")


def load_ratings(request: AgreementRequest) -> tuple[Ratings, list[Path], str]:
    """The raters' (and judge's) scores, the files read, and a name for the source (``wmt25/en-de_DE``)."""
    _check_scale("--scale", request.scale)
    _check_scale("--judge-scale", request.judge_scale)
    pair = None
    if request.ratings:
        table = user_ratings(request.ratings, request.scale or "other")
        source = ",".join(p.name for p in request.ratings)
    else:
        present = language_pairs(request.data)
        if request.lp not in present:
            raise UserError(f"--lp {request.lp}: no such language pair in {request.data} (have {', '.join(present)})")
        pair = LanguagePair(request.data, request.lp, cache=ScoreCache.default())  # rating files parsed once
        table = wmt_raters(pair, request.humans or None)
        table.scale = request.scale or table.scale
        source = f"{request.data.name}/{request.lp}"
    files = list(table.files)
    judge = None
    if request.judge is not None:
        judge = read_judge(request.judge, pair, request.judge_scale)
        files.append(judge.file)
    ratings = Ratings(table.items, table.raters, table.scores, table.scale,
                      None if judge is None else judge.aligned(table.items),
                      judge.name if judge else "judge", judge.scale if judge else "other")
    return ratings, files, source


def agreement_frame(result: AgreementResult) -> pd.DataFrame:
    """One row per comparison: items, then each statistic with its interval (NaN where undefined)."""
    rows = []
    for row in result.rows:
        record: dict[str, object] = {"comparison": row.label, "kind": row.kind, "items": row.items}
        for name in result.statistics:
            low, high = row.interval(name) if np.isfinite(row.point(name)) else (np.nan, np.nan)
            record |= {name: row.point(name), f"{name}_low": low, f"{name}_high": high}
        rows.append(record)
    return pd.DataFrame(rows)


def items_frame(ratings: Ratings) -> pd.DataFrame:
    """The scores the table was computed from, one row per item (so every figure can be recomputed)."""
    frame = pd.DataFrame(ratings.scores.T, columns=ratings.raters)
    frame.insert(0, "item", ratings.items)
    if ratings.judge is not None:
        frame[ratings.judge_name] = ratings.judge
    return frame


SUMMARY_KEYS = {"raters: mean pairwise": "raters_mean_pairwise", "raters: all together": "raters_all_together",
                "judge: mean over raters": "judge_mean", "judge / raters": "judge_share"}


def metric_key(result: AgreementResult, row: Row) -> str:
    """A row's MLflow name, the same for every judge: ``mqm_rater1_vs_mqm_rater2``, ``judge_vs_mqm_rater1``,
    ``raters_mean_pairwise``, ``judge_mean``, ``judge_share``."""
    if row.kind in SUMMARY_KEYS:
        return SUMMARY_KEYS[row.kind]
    if row.kind == "judge vs rater":
        return "judge_vs_" + slug(row.label.removeprefix(f"{result.ratings.judge_name} vs "))
    return slug(row.label)


def agreement_metrics(result: AgreementResult, prefix: str = "agreement.") -> dict[str, float]:
    """``agreement.<row>.<statistic>`` (and ``_low`` / ``_high``) for MLflow; undefined values left out."""
    metrics = {}
    for row in result.rows:
        for name in result.statistics:
            point = row.point(name)
            if not np.isfinite(point):
                continue
            low, high = row.interval(name)
            key = f"{prefix}{metric_key(result, row)}.{name}"
            metrics |= {key: point, f"{key}_low": low, f"{key}_high": high}
    return metrics


def run_agreement(request: AgreementRequest, tracking: TrackingSettings) -> AgreementRun:
    """Compute the agreement table and log it as one MLflow run (params, metrics, the table, the items)."""
    started = time.time()
    ratings, files, source = load_ratings(request)
    result = compute_agreement(ratings, request.samples, request.seed, request.kappa_weights)
    table = agreement_frame(result)
    data_tag = f"{source}@{files_hash(files)}"
    judge = ratings.judge_name if ratings.judge is not None else None
    sig = str(AgreementSignature(raters=len(result.raters), judge=judge, items=len(result.items),
                                 samples=request.samples, seed=request.seed, kappa=request.kappa_weights,
                                 data=data_tag))
    params = {"source": source, "raters": ",".join(result.raters), "judge": judge, "judge_file": request.judge,
              "scale": ratings.scale, "judge_scale": ratings.judge_scale if judge else None,
              "items": len(result.items), "samples": request.samples, "seed": request.seed,
              "kappa_weights": request.kappa_weights, "interval": "bootstrap percentile 95% over items"}
    name = f"agreement | {len(result.raters)} raters{' + ' + judge if judge else ''} | {source} x{len(result.items)}"
    with tracked_run(tracking, name, params, {"tribunal.command": "mt agreement"}, sig, started=started) as run:
        items = items_frame(result.ratings)
        log_input(run, source, data_tag.split("@")[1], request.data or request.ratings[0], items, "evaluation")
        run.log_metrics(agreement_metrics(result))
        run.log_text(table_to_tsv(table), "agreement.tsv")
        run.log_text(table_to_tsv(items), "agreement_items.tsv")
        if result.notes:
            run.log_text("\n".join(result.notes) + "\n", "notes.txt")
        return AgreementRun(result, ratings, table, sig, run.run_id, source)


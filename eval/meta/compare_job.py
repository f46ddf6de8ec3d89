"""``tribunal mt compare A B``: paired significance of two metrics on every task of a protocol.

Units per task (what gets swapped between the two metrics under the null):
- system-level pairwise accuracy: system pairs, pooled over the language pairs;
- system-level Pearson: systems; segment-level Pearson: rated cells (scores z-scored per metric so
  that swapping across metrics of different scales is meaningful; Pearson is unchanged by it);
- segment-level acc-t / acc_eq: within-item system pairs, scored at each metric's own tuned
  epsilon, fixed (WMT's ``perm_test="pairs"``); its bootstrap interval resamples items;
- system-level SPA (WMT24 / WMT25 protocols): rated cells, z-scored, with the draws of
  ``meta-eval --significance`` (:func:`resampling.spa_nulls`). No bootstrap interval: SPA's sign
  matrix is tied to segment positions, so a resampled segment list is a different statistic.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from tribunal.errors import UserError
from tribunal.eval.data.conventions import conventions_for
from tribunal.eval.data.mtme import LanguagePair
from tribunal.eval.data.score_cache import ScoreCache
from tribunal.eval.meta.blas_threads import one_blas_thread
from tribunal.eval.meta.correlation import agreement_indicators, pair_correct, tie_calibrated_accuracy
from tribunal.eval.meta.meta_eval_job import load_pairs, used_files
from tribunal.eval.meta.report import table_to_tsv
from tribunal.eval.meta.significance import (
    bootstrap_interval,
    mean_statistic,
    pearson_statistic,
    permutation_test,
    rowwise_pearson,
)
from tribunal.eval.meta.lp_tasks import AlignedMetric, GoldMatrices, align_metric
from tribunal.eval.meta.protocols import get_protocol
from tribunal.eval.meta.resampling import spa_nulls
from tribunal.eval.meta.spa import pairwise_p_values, soft_pairwise_accuracy
from tribunal.eval.tracking.mlflow_run import TrackingSettings, tracked_run
from tribunal.eval.tracking.run_signatures import CompareSignature
from tribunal.eval.tracking.signature import files_hash


@dataclass
class CompareResult:
    table: pd.DataFrame
    signature: str
    run_id: str | None


def _zscore(x: np.ndarray) -> np.ndarray:
    return (x - x.mean()) / x.std()


def _row(task: str, a: np.ndarray, b: np.ndarray, statistic, delta, samples: int, seed: int, n_boot: int | None = None) -> dict:
    perm = permutation_test(a, b, statistic, samples, seed)
    low, high = bootstrap_interval(n_boot or len(a), delta, samples, seed)
    return {"task": task, "units": len(a), "a": perm.statistic_a, "b": perm.statistic_b,
            "delta": perm.delta, "p_value": perm.p_value, "ci_low": low, "ci_high": high}


def _pearson_row(task: str, gold: np.ndarray, a: np.ndarray, b: np.ndarray, samples: int, seed: int) -> dict:
    a, b = _zscore(a), _zscore(b)
    delta = lambda rows: rowwise_pearson(gold[rows], a[rows]) - rowwise_pearson(gold[rows], b[rows])  # noqa: E731
    return _row(task, a, b, pearson_statistic(gold), delta, samples, seed)


def _mean_row(task: str, a: np.ndarray, b: np.ndarray, samples: int, seed: int) -> dict:
    return _row(task, a, b, mean_statistic(), lambda rows: a[rows].mean(-1) - b[rows].mean(-1), samples, seed)


def _spa_row(lp: str, gold: GoldMatrices, a: AlignedMetric, b: AlignedMetric, samples: int, seed: int) -> dict:
    rows, columns = gold.spa_cells
    cells = np.ix_(rows, columns)
    stat_a, stat_b = (soft_pairwise_accuracy(gold.spa_p_values, pairwise_p_values(m.seg[cells])) for m in (a, b))
    null = spa_nulls(gold.spa_p_values, np.stack([a.seg[cells], b.seg[cells]]), samples,
                     np.random.default_rng(seed))[:, 0, 1]
    delta = stat_a - stat_b
    extreme = (null >= delta - 1e-12) if delta >= 0 else (null <= delta + 1e-12)
    return {"task": f"{lp} sys SPA", "units": int(len(rows) * len(columns)), "a": stat_a, "b": stat_b,
            "delta": delta, "p_value": float((1 + extreme.sum()) / (1 + samples)), "ci_low": np.nan, "ci_high": np.nan}


def _acc_t_row(lp: str, gold: GoldMatrices, a: AlignedMetric, b: AlignedMetric, samples: int, seed: int,
               label: str = "acc-t") -> dict:
    pairs_a, pairs_b = gold.pairs.table(a.seg), gold.pairs.table(b.seg)
    correct_a = pair_correct(pairs_a, tie_calibrated_accuracy(pairs_a)[1]).astype(float)
    correct_b = pair_correct(pairs_b, tie_calibrated_accuracy(pairs_b)[1]).astype(float)
    items = np.unique(pairs_a.row)
    item_a = np.bincount(pairs_a.row, pairs_a.weight * correct_a)[items]
    item_b = np.bincount(pairs_a.row, pairs_a.weight * correct_b)[items]
    delta = lambda rows: item_a[rows].mean(-1) - item_b[rows].mean(-1)  # noqa: E731
    statistic = mean_statistic(pairs_a.weight / pairs_a.n_rows)
    return _row(f"{lp} seg {label}", correct_a, correct_b, statistic, delta, samples, seed, n_boot=len(items))


def compare_metrics(pairs: dict[str, LanguagePair], metric_a: str, metric_b: str, samples: int, seed: int,
                    protocol: str = "wmt23") -> pd.DataFrame:
    """The comparison table: one row per task with both statistics, delta, p-value and 95% CI."""
    chosen = get_protocol(protocol)
    wmt23 = chosen.needs_sys_scores
    rows, agree_a, agree_b = [], [], []
    for lp, pair in sorted(pairs.items()):
        gold = GoldMatrices.from_pair(pair, need_sys=wmt23)
        aligned = {}
        for name in (metric_a, metric_b):
            full = pair.resolve_metric(name)
            if full is None:
                raise UserError(f"{lp}: no scores for metric {name!r}")
            aligned[name] = align_metric(gold, pair.metric_sys(full) if wmt23 else None, pair.metric_seg(full), wmt23)
            if aligned[name].problems:
                raise UserError(f"{lp} {name}: {'; '.join(aligned[name].problems)}")
        a, b = aligned[metric_a], aligned[metric_b]
        if not wmt23:
            rows.append(_spa_row(lp, gold, a, b, samples, seed))
            rows.append(_acc_t_row(lp, gold, a, b, samples, seed, label="acc_eq"))
            continue
        agree_a.append(agreement_indicators(gold.sys, a.sys))
        agree_b.append(agreement_indicators(gold.sys, b.sys))
        rows.append(_pearson_row(f"{lp} sys pearson", gold.sys, a.sys, b.sys, samples, seed))
        rated = ~np.isnan(gold.seg)
        rows.append(_pearson_row(f"{lp} seg pearson", gold.seg[rated], a.seg[rated], b.seg[rated], samples, seed))
        rows.append(_acc_t_row(lp, gold, a, b, samples, seed))
    if wmt23:
        pooled_a, pooled_b = np.concatenate(agree_a).astype(float), np.concatenate(agree_b).astype(float)
        rows.insert(0, _mean_row("sys accuracy (pooled)", pooled_a, pooled_b, samples, seed))
    return pd.DataFrame(rows)


def run_compare(data: Path, metric_a: str, metric_b: str, lps: list[str] | None, samples: int, seed: int,
                tracking: TrackingSettings, protocol: str | None = None, data_cache: bool = True) -> CompareResult:
    """Compute the comparison (the data set's own protocol by default) and log it as one MLflow run.

    ``data_cache`` reads parsed score files from the user's cache (:mod:`score_cache`).
    """
    protocol = protocol or conventions_for(data).protocol
    get_protocol(protocol)
    cache = ScoreCache.default() if data_cache else None
    pairs = load_pairs(data, lps, cache=cache)
    with one_blas_thread():
        table = compare_metrics(pairs, metric_a, metric_b, samples, seed, protocol)
    digest_of = cache.sha256 if cache else None
    need_sys = get_protocol(protocol).needs_sys_scores
    used = files_hash(used_files(pairs, [metric_a, metric_b], need_sys), digest_of=digest_of)
    data_tag = f"{data.name}/{','.join(sorted(pairs))}@{used}"
    sig = str(CompareSignature(task=f"{protocol}-compare", a=metric_a, b=metric_b, samples=samples, seed=seed,
                               data=data_tag))
    params = {"a": metric_a, "b": metric_b, "samples": samples, "seed": seed, "data": str(data)}
    with tracked_run(tracking, f"compare {metric_a} vs {metric_b}", params, {"tribunal.command": "mt compare"}, sig) as run:
        run.log_text(table_to_tsv(table), "compare.tsv")
        run.log_metrics({f"{r['task']}/p_value".replace(" ", "_"): r["p_value"] for r in table.to_dict("records")})
        return CompareResult(table, sig, run.run_id)

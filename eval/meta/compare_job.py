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

import pandas as pd

from tribunal.errors import UserError
from tribunal.data.conventions import conventions_for
from tribunal.data.mtme import LanguagePair
from tribunal.data.score_cache import ScoreCache
from tribunal.eval.meta.blas_threads import one_blas_thread
from tribunal.eval.meta.meta_eval_job import load_pairs, used_files
from tribunal.eval.meta.report import table_to_tsv
from tribunal.eval.meta.lp_tasks import GoldMatrices, align_metric
from tribunal.eval.meta.protocols import Task, get_protocol
from tribunal.eval.meta.resampling_kinds import RESAMPLINGS
from tribunal.eval.tracking.mlflow_run import TrackingSettings, tracked_run
from tribunal.eval.tracking.run_signatures import CompareSignature
from tribunal.eval.tracking.signature import files_hash


@dataclass
class CompareResult:
    table: pd.DataFrame
    signature: str
    run_id: str | None


def task_label(task: Task) -> str:
    """A row's task: ``en-de seg acc-t``, or ``sys accuracy (pooled)``."""
    return f"{task.spec.display} (pooled)" if task.pooled else f"{task.lps[0]} {task.spec.display}"


def _aligned(lp: str, pair: LanguagePair, gold: GoldMatrices, names: tuple[str, str], need_sys: bool) -> list:
    aligned = []
    for name in names:
        full = pair.resolve_metric(name)
        if full is None:
            raise UserError(f"{lp}: no scores for metric {name!r}")
        aligned.append(align_metric(gold, pair.metric_sys(full) if need_sys else None, pair.metric_seg(full), need_sys))
        if aligned[-1].problems:
            raise UserError(f"{lp} {name}: {'; '.join(aligned[-1].problems)}")
    return aligned


def compare_metrics(pairs: dict[str, LanguagePair], metric_a: str, metric_b: str, samples: int, seed: int,
                    protocol: str = "wmt23") -> pd.DataFrame:
    """The comparison table: one row per task of the protocol with both statistics, delta, p-value and 95% CI.

    Each statistic is tested by the ``compare`` of its declared resampling (:mod:`resampling_kinds`).
    """
    chosen = get_protocol(protocol)
    need_sys = chosen.needs_sys_scores
    paired = {}
    for lp, pair in sorted(pairs.items()):
        gold = GoldMatrices.from_pair(pair, need_sys=need_sys)
        paired[lp] = (gold, *_aligned(lp, pair, gold, (metric_a, metric_b), need_sys))
    rows = [RESAMPLINGS[task.spec.resampling].compare(task.spec, task_label(task), [paired[lp] for lp in task.lps],
                                                       samples, seed)
            for task in chosen.tasks(sorted(pairs))]
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

"""Meta-evaluation of an MT run on the cells it covered, span F1, and the run summary."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from tribunal.data.mtme import LanguagePair
from tribunal.eval.meta.lp_tasks import GoldMatrices, evaluate_metric_lp  # not wmt23: it imports pandas
from tribunal.eval.meta.statistics import per_lp_tasks
from tribunal.eval.mt.items import RunItems
from tribunal.core.item_result import ItemResult
from tribunal.runner.meter import add_summaries
from tribunal.eval.mt.grounding import locate, spans_of
from tribunal.eval.mt.outputs import system_scores
from tribunal.core.rating import Rating
from tribunal.core.spans import Span, span
from tribunal.programs.fallbacks import degraded_roles
from tribunal.programs.pricing import spend


def covered_gold(pair: LanguagePair, items: RunItems, seg: dict[str, np.ndarray]) -> GoldMatrices | None:
    """Gold restricted to the covered, scored cells (NaN elsewhere); system gold = mean over them."""
    full = GoldMatrices.from_pair(pair)
    keep = [i for i, s in enumerate(full.systems) if s in seg]
    if not keep:
        return None
    systems = [full.systems[i] for i in keep]
    gold_seg = full.seg[:, keep].copy()
    metric = np.stack([seg[s] for s in systems], axis=1)
    gold_seg[np.isnan(metric)] = np.nan
    rated = np.isfinite(gold_seg).any(axis=0)
    if rated.sum() < 2:
        return None
    systems = [s for s, r in zip(systems, rated) if r]
    gold_seg = gold_seg[:, rated]
    return GoldMatrices.from_arrays(systems, np.nanmean(gold_seg, axis=0), gold_seg)


def meta_evaluation(pair: LanguagePair, items: RunItems, seg: dict[str, np.ndarray]) -> dict[str, float]:
    """The run report's statistics (declared with ``tables=("run", ...)``: system Pearson, pairwise
    accuracy, segment Pearson, acc-t) over the covered cells, and how many cells and systems that is."""
    gold = covered_gold(pair, items, seg)
    if gold is None:
        return {}
    kinds = tuple(s.key for s in per_lp_tasks("run"))
    result = evaluate_metric_lp(gold, system_scores(seg), seg, kinds)
    return {key: result.value(key) for key in kinds} | {
        "covered_cells": float(np.isfinite(gold.seg).sum()), "covered_systems": float(len(gold.systems))}


SPAN_MEASURES = ("mpp", "wmt25")
"""The field's measures in the summary (micro, optimal one-to-one, target side: :mod:`tribunal.eval.meta.spans`)."""


def rater_spans(rating: Rating) -> list[Span]:
    """A rater's spans as the measures read them (severity lower-cased)."""
    return [span(e.start, e.end, e.severity, e.side) for e in rating or ()]


def span_evaluation(pair: LanguagePair, items: RunItems, results: dict[str, ItemResult]) -> dict[str, float]:
    """Span P/R/F against every rating file, pooled over (cell, rater), and per rater.

    The field's measures (Perrella et al. 2026): ``mpp_precision`` / ``mpp_recall`` / ``mpp_f`` (micro MPP)
    and ``wmt25_*`` (the WMT25 character measure), pooled over (cell, rater), and ``RATER.mpp_f`` /
    ``RATER.wmt25_f`` for each rating file. Legacy, kept for the tables that report them and derived from the
    same measures with the same empty-side convention (:mod:`tribunal.eval.meta.spans.legacy`):
    ``char_precision`` / ``char_recall`` / ``char_f1`` (pooled character F1) and ``span_*`` (one shared
    character is a match: MP with many-to-many coverage).

    Beside the pooled counts (``predicted_spans``, ``gold_spans``: per cell and rater), what the judge
    marked in the rated cells, counted once per cell: ``judge_spans`` = ``judge_spans_located`` (in the
    translation, what P/R/F1 compare) + ``judge_spans_ungrounded`` + ``judge_spans_source``, over
    ``rated_cells``; so a judge whose spans could not be located is never said to have marked none.
    """
    from tribunal.eval.meta.spans import SpanOptions, aggregate, segment_counts  # heavy: pulls in scipy
    from tribunal.eval.meta.spans.legacy import LEGACY_KEYS, legacy_scores  # heavy: the measures above

    located: dict[str, list] = {}  # an item's spans are grounded once, however many cells and raters share it
    cells, rated = [], {}
    measured: dict[str, dict[str, list]] = {m: {} for m in SPAN_MEASURES}  # measure -> rater -> per-cell counts
    for name in pair.rating_names:
        ratings = pair.ratings(name)
        for cell in items.cells:
            result = results.get(cell.key)
            gold = ratings.get(cell.system, [None] * pair.n_segments)[cell.segment]
            if result is None or result.status != "scored" or gold is None:
                continue
            if cell.key not in located:
                item = items.items[cell.key]
                located[cell.key] = locate(result.errors, item.translation, item.source)
            rated[(cell.system, cell.segment)] = located[cell.key]
            judge, human = spans_of(located[cell.key]), rater_spans(gold)
            cells.append((judge, human))
            for measure, by_rater in measured.items():
                by_rater.setdefault(name, []).append(segment_counts(judge, human, SpanOptions(measure=measure)))
    if not cells:
        return {}
    legacy = legacy_scores(cells)
    measures: dict[str, float] = {}
    for measure, by_rater in measured.items():
        options = SpanOptions(measure=measure)
        pooled = aggregate([c for rater in by_rater.values() for c in rater], options)
        measures |= {f"{measure}_precision": pooled.precision, f"{measure}_recall": pooled.recall,
                     f"{measure}_f": pooled.f}
        measures |= {f"{rater}.{measure}_f": aggregate(c, options).f for rater, c in by_rater.items()}
    tally = span_tally(e for errors in rated.values() for e in errors)
    return {k: legacy[k] for k in (*LEGACY_KEYS, "cells")} | measures | {
        "predicted_spans": legacy["spans_predicted"], "gold_spans": legacy["spans_gold"],
        "rated_cells": float(len(rated)), **{f"judge_spans_{k}": float(v) for k, v in tally.items()},
        "judge_spans": float(tally["translation"] + tally["source"]),  # judge_spans_source: from the tally
        "judge_spans_ungrounded": float(tally["translation_ungrounded"]),
        "judge_spans_located": float(tally["translation"] - tally["translation_ungrounded"])}


GROUNDINGS = ("exact", "normalised", "fuzzy", "ungrounded")


def span_tally(located: Any) -> dict[str, int]:
    """Error spans by side and by how they were grounded in that side's text, the one count every summary
    line uses: ``translation`` / ``source`` (totals) and ``<side>_<exact|normalised|fuzzy|ungrounded>``.
    ``ungrounded`` = marked on that side but not found in its text (kept, never dropped)."""
    tally = Counter({f"{side}{suffix}": 0 for side in ("translation", "source")
                     for suffix in ("", *(f"_{g}" for g in GROUNDINGS))})
    for error in located:
        side = "source" if error.get("is_source_error") else "translation"
        tally[side] += 1
        tally[f"{side}_{error['grounding']}"] += 1
    return dict(tally)


def grounding_counts(items: RunItems, results: dict[str, ItemResult]) -> dict[str, int]:
    """:func:`span_tally` of the error spans of every scored item (rated or not)."""
    return span_tally(e for key, item in items.items.items()
                      if (result := results.get(key)) is not None and result.status == "scored"
                      for e in locate(result.errors, item.translation, item.source))


def run_summary(items: RunItems, results: dict[str, ItemResult], wall_seconds: float) -> dict[str, Any]:
    """Items scored / unscored by reason, LM calls and tokens by stage, wall time."""
    judged = [results[k] for k in items.items if k in results]
    reasons = Counter(r.reason.split(":")[0] for r in judged if r.status == "unscored" and r.reason)
    degraded = [r for r in judged if r.status == "scored" and r.degraded]
    usage = add_summaries([r.usage for r in judged])
    stages = {k: v for k, v in usage.get("calls", {}).items() if "/" not in k}
    cached = sum(v for k, v in usage.get("cached", {}).items() if "/" not in k)
    failed = sum(v for k, v in usage.get("failed", {}).items() if "/" not in k)
    cost = spend(usage.get("model_prompt_tokens", {}), usage.get("model_completion_tokens", {}))
    return {
        "cells": len(items.cells), "items": len(items.items), "duplicates": items.duplicates,
        "judged": len(judged), "scored": sum(r.status == "scored" for r in judged),
        "unscored": sum(r.status == "unscored" for r in judged), "unscored_reasons": dict(reasons),
        "degraded": len(degraded),
        "degraded_by_role": dict(Counter(role for r in degraded for role in degraded_roles(r.degraded))),
        "unscored_retryable": sum(r.status == "unscored" and r.retryable for r in judged),
        "unscored_permanent": sum(r.status == "unscored" and not r.retryable for r in judged),
        "lm_calls": sum(stages.values()), "lm_calls_by_stage": stages,
        "lm_calls_paid": sum(stages.values()) - cached - failed, "lm_calls_cached": cached, "lm_calls_failed": failed,
        "lm_calls_by_role": {k: v for k, v in usage.get("calls", {}).items() if "/" in k},
        "lm_reasks": sum(v for k, v in usage.get("reasks", {}).items() if "/" not in k),
        "lm_reasks_by_kind": dict(sorted(usage.get("reask_kinds", {}).items())),
        "lm_reasks_by_role": {k: v for k, v in usage.get("reasks", {}).items() if "/" in k},
        "lm_runaways": sum(v for k, v in usage.get("runaways", {}).items() if "/" not in k),
        "lm_runaways_by_role": {k: v for k, v in usage.get("runaways", {}).items() if "/" in k},
        "prompt_tokens": sum(v for k, v in usage.get("prompt_tokens", {}).items() if "/" not in k),
        "completion_tokens": sum(v for k, v in usage.get("completion_tokens", {}).items() if "/" not in k),
        "tokens_by_stage": {k: usage.get("prompt_tokens", {}).get(k, 0) + usage.get("completion_tokens", {}).get(k, 0)
                            for k in stages},
        "cost_usd": round(cost.usd, 6) if cost.known else None,
        "cost": cost.describe(),
        "spans": grounding_counts(items, results),
        "wall_seconds": wall_seconds,
    }

"""The error-free detection block of an MT run's report (WMT26 subtask 3), when its cells have human labels.

Every ``mt evaluate`` run whose scored cells have gold labels gets, in its summary (``summary.json``'s
``details.error_free``), its terminal report, its MLflow metrics (``error_free.<measure>``,
``error_free.<measure>_low`` / ``_high``) and its page, the measures of
:mod:`tribunal.eval.meta.binary_measures` (MCC, precision, recall and F1 of the error-free class,
balanced accuracy, predicted rate) with 95 % percentile bootstrap intervals over cells (1000 draws,
seed 1234), on the cells that have both a gold label and a prediction.

- **Gold**, from what the run meta-evaluates against (the pair's gold, :attr:`LanguagePair.gold_name`),
  by the rules of :mod:`tribunal.eval.meta.error_free`: MQM rating files of that name (``mqm.merged``,
  or ``mqm.rater1`` ... where the first that rated a cell gives its label): no error span; an MQM
  score file without spans: score >= 0; an ESA campaign protocol with spans: score >= threshold and
  no span; an ESA score file: its score half (>= threshold). No gold for the run's cells: no block.
- **Prediction**: the judge's answer converted by :func:`~tribunal.eval.meta.error_free.from_judgment`
  (no error span and a score at its scale's threshold; the ``error-free`` judge's own verdict).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tribunal.core.item_result import ItemResult
from tribunal.errors import UserError
from tribunal.data.esa_gold import score_file
from tribunal.data.mtme import LanguagePair
from tribunal.data.score_files import read_seg_scores
from tribunal.eval.meta.binary_measures import MEASURES, bootstrap, measures
from tribunal.eval.meta.error_free import GOLD_THRESHOLD, SCALE_THRESHOLDS, from_judgment, from_score, mqm_error_free
from tribunal.eval.meta.error_free_job import gold_labels
from tribunal.eval.mt.items import RunItems

SAMPLES = 1000
SEED = 1234


def _rating_labels(pair: LanguagePair, systems: list[str], names: list[str]) -> np.ndarray:
    """"No error" per cell from the first of ``names`` that rated it (NaN where none did)."""
    unrated = [None] * pair.n_segments
    tables = [pair.ratings(name) for name in names]
    labels = []
    for system in systems:
        for segment in range(pair.n_segments):
            rating = next((r for t in tables if (r := t.get(system, unrated)[segment]) is not None), None)
            labels.append(mqm_error_free(rating))
    return np.array(labels, float)


def run_gold(pair: LanguagePair, systems: list[str], threshold: float = GOLD_THRESHOLD
             ) -> tuple[str, str, np.ndarray] | None:
    """``(gold name, its rule, labels over systems x segments)`` of the pair's gold, None when it has none."""
    name = pair.gold_name
    raters = [r for r in pair.rating_names if r == name or r.startswith(f"{name}.")]
    if raters:
        return ", ".join(raters), "no error span", _rating_labels(pair, systems, raters)
    if name.lower().startswith("mqm"):
        path = score_file(pair.lp, name, list(pair.human_dirs))
        if path is None:
            return None
        values = read_seg_scores(path, pair.n_segments)
        empty = np.full(pair.n_segments, np.nan)
        flat = np.concatenate([np.asarray(values.get(s, empty), float) for s in systems])
        return name, "MQM score >= 0 (no spans in the file)", from_score(flat, 0.0)
    notes: list[str] = []
    try:
        labels = gold_labels(pair, systems, name, list(pair.human_dirs), threshold, notes)
    except UserError:  # no file of that name holds labels for this pair
        return None
    rule = f"score >= {threshold:g} (no spans in the file)" if notes else f"score >= {threshold:g} and no span"
    return name, rule, labels


def run_predictions(items: RunItems, results: dict[str, ItemResult], systems: list[str], n_segments: int,
                    scale: str) -> np.ndarray:
    """The judge's converted answer per cell (systems x segments), NaN where it did not score the cell."""
    labels = np.full(len(systems) * n_segments, np.nan)
    column = {s: i for i, s in enumerate(systems)}
    for cell in items.cells:
        result = results.get(cell.key)
        if result is not None and result.status == "scored" and cell.system in column:
            labels[column[cell.system] * n_segments + cell.segment] = from_judgment(result.errors, result.score, scale)
    return labels


def prediction_rule(scale: str) -> str:
    return f"no error span and score >= {SCALE_THRESHOLDS[scale]:g} ({scale} scale)"


def run_error_free(pair: LanguagePair, items: RunItems, results: dict[str, ItemResult], scale: str = "mqm",
                   samples: int = SAMPLES, seed: int = SEED) -> dict[str, Any] | None:
    """The block for ``summary.json`` (see the module docstring), None without a gold label on a scored cell."""
    systems = list(items.systems)
    gold = run_gold(pair, systems)
    if gold is None:
        return None
    name, rule, labels = gold
    predicted = run_predictions(items, results, systems, pair.n_segments, scale)
    shared = np.isfinite(labels) & np.isfinite(predicted)
    if not shared.any():
        return None
    g, p = labels[shared], predicted[shared]
    values, intervals = measures(g, p), bootstrap(g, p, samples, seed)
    return {"gold": name, "gold_rule": rule, "prediction_rule": prediction_rule(scale), "cells": int(shared.sum()),
            "gold_error_free_rate": float(g.mean()), "samples": samples, "seed": seed,
            "measures": {m: {"value": values[m], "interval": list(intervals[m])} for m in MEASURES}}


def error_free_metrics(block: dict[str, Any] | None) -> dict[str, float]:
    """``error_free.<measure>`` and its ``_low`` / ``_high`` bounds, ``error_free.cells``, for MLflow."""
    if not block:
        return {}
    out = {"error_free.cells": float(block["cells"]), "error_free.gold_error_free_rate": block["gold_error_free_rate"]}
    for measure, figures in block["measures"].items():
        low, high = figures["interval"]
        out |= {f"error_free.{measure}": figures["value"], f"error_free.{measure}_low": low,
                f"error_free.{measure}_high": high}
    return out


def error_free_lines(block: dict[str, Any]) -> list[str]:
    """The terminal report's lines of the block."""
    shown = {"mcc": "MCC", "precision": "P", "recall": "R", "f1": "F1", "balanced_accuracy": "balanced accuracy",
             "predicted_rate": "predicted error-free"}
    figures = ", ".join(f"{shown[m]} {f['value']:.3f} [{f['interval'][0]:.3f}, {f['interval'][1]:.3f}]"
                        for m, f in block["measures"].items())
    return [f"error-free detection (WMT26 subtask 3) against {block['gold']} ({block['gold_rule']}; "
            f"{block['cells']} cells, {block['gold_error_free_rate']:.1%} error-free); judge: "
            f"{block['prediction_rule']} (95% bootstrap, {block['samples']} draws over cells, seed {block['seed']}):",
            f"  {figures}"]

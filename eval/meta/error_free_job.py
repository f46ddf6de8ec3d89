"""The error-free detection table (``mt meta-eval --task error-free``): gold, detectors, measures, clusters.

**Gold** (:mod:`tribunal.eval.meta.error_free`): a campaign protocol with raw annotations (``ESA-1``:
score >= threshold and no span; ``MQM-1``: no error), an MQM rating file of the pair (``mqm.merged``:
no error), or an ESA score file without spans (``esa-human1``: the score half of the rule only, said
in the notes).

**Detectors**, each a row:

- the campaign's other protocols with raw annotations, converted by the rule their kind takes (ESA
  passes: the gold rule, the rater-vs-rater ceiling; MQM passes: no error span);
- the campaign's score-only protocols (``LLM``: GEMBA-MQM's spans scored on MQM's scale, error-free
  at 0; ``GEMBA2``: 0-100, at 85) converted by WMT26's score rule at a fixed threshold;
- metrics and judge score files (``--metric``; ``--scores`` folders): a threshold calibrated on a dev
  split (the segments of ``dev_fraction``, drawn with ``seed``; the threshold maximising MCC on the
  dev cells); every row is then measured on the other segments only, so all rows share their cells.

All rows are measured on the cells where the gold and every detector have a label.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tribunal.errors import UserError
from tribunal.data.esa_gold import CAMPAIGN_FILES, campaign_protocol, score_file
from tribunal.data.mtme import LanguagePair
from tribunal.data.score_files import read_seg_scores
from tribunal.eval.meta.binary_measures import bootstrap, mcc_nulls, mcc_of, measures
from tribunal.eval.meta.clusters import ranking
from tribunal.eval.meta.error_free import GOLD_THRESHOLD, from_score, labels_of, mqm_labels

SCORE_ONLY = {"LLM": 0.0, "GEMBA2": GOLD_THRESHOLD}
"""The campaign's protocols with a score file only, and the threshold their scale takes."""


@dataclass
class Detector:
    name: str
    rule: str
    labels: np.ndarray
    """0/1 per cell of the pair's layout (systems x segments, flattened), NaN where none."""
    threshold: float | None = None


@dataclass
class ErrorFreeTable:
    rows: list[dict]
    gold: str
    cells: int
    error_free_rate: float
    notes: list[str] = field(default_factory=list)


def _flat(pair: LanguagePair, systems: list[str], per_system: dict[str, np.ndarray]) -> np.ndarray:
    empty = np.full(pair.n_segments, np.nan)
    return np.concatenate([np.asarray(per_system.get(s, empty), float) for s in systems])


def campaign_labels(pair: LanguagePair, systems: list[str], folder: Path, protocol: str,
                    threshold: float) -> np.ndarray:
    """A campaign protocol's labels: the gold rule for ESA passes, "no error" for MQM ones."""
    campaign = campaign_protocol(folder, protocol)
    ratings = campaign.ratings(systems, pair.n_segments)
    if protocol.startswith("MQM"):
        return np.concatenate([mqm_labels(ratings[s]) for s in systems])
    scores = campaign.seg_scores(systems, pair.n_segments)
    return np.concatenate([labels_of(scores[s], ratings[s], threshold) for s in systems])


def gold_labels(pair: LanguagePair, systems: list[str], name: str, folders: list[Path],
                threshold: float, notes: list[str]) -> np.ndarray:
    """The gold of ``name`` (see the module docstring)."""
    folder = next((f for f in folders if name in CAMPAIGN_FILES and (f / CAMPAIGN_FILES[name][0]).is_file()), None)
    if folder is not None:
        return campaign_labels(pair, systems, folder, name, threshold)
    if name in pair.rating_names:
        ratings = pair.ratings(name)
        return np.concatenate([mqm_labels(ratings.get(s, [None] * pair.n_segments)) for s in systems])
    path = score_file(pair.lp, name, folders)
    if path is None:
        raise UserError(f"--human {name}: no raw campaign annotations, rating file or score file for {pair.lp}")
    notes.append(f"gold {name}: a score file without spans, so only its score half of the rule (>= {threshold:g})")
    return from_score(_flat(pair, systems, read_seg_scores(path, pair.n_segments)), threshold)


def campaign_detectors(pair: LanguagePair, systems: list[str], gold: str, folders: list[Path],
                       threshold: float, subsets: bool = False) -> list[Detector]:
    """The campaign's other passes (rules) and its score-only protocols (fixed thresholds); the ``-IAA``
    passes (a third of the items) only with ``subsets``, since every row is measured on the shared cells."""
    found = []
    for folder in folders:
        for protocol, (scores, _) in CAMPAIGN_FILES.items():
            if protocol.endswith("-IAA") and not subsets:
                continue
            if protocol != gold and (folder / scores).is_file():
                rule = "no error span" if protocol.startswith("MQM") else f"score >= {threshold:g} and no span"
                found.append(Detector(protocol, rule, campaign_labels(pair, systems, folder, protocol, threshold)))
        for protocol, cut in SCORE_ONLY.items():
            path = score_file(pair.lp, protocol, [folder])
            if path is not None and protocol != gold:
                values = _flat(pair, systems, read_seg_scores(path, pair.n_segments))
                found.append(Detector(protocol, f"score >= {cut:g}", from_score(values, cut), cut))
    return found


def calibrated_threshold(gold: np.ndarray, scores: np.ndarray) -> float:
    """The threshold (one of the scores) whose ``score >= t`` labels have the highest MCC (lowest t on ties)."""
    candidates = np.unique(scores)
    labels = (scores[None, :] >= candidates[:, None]).astype(float)
    return float(candidates[int(np.argmax(mcc_of(gold[None, :], labels)))])


def dev_cells(pair: LanguagePair, n_systems: int, fraction: float, seed: int) -> np.ndarray:
    """True for the cells of the dev segments (``fraction`` of the segments, seeded)."""
    dev = np.random.default_rng(seed).random(pair.n_segments) < fraction
    return np.tile(dev, n_systems)


def score_detector(name: str, values: np.ndarray, gold: np.ndarray, dev: np.ndarray) -> Detector:
    """A score file converted at its dev-calibrated threshold."""
    usable = dev & np.isfinite(values) & np.isfinite(gold)
    if not usable.any():
        raise UserError(f"{name}: no scored dev cell to calibrate a threshold on")
    cut = calibrated_threshold(gold[usable], values[usable])
    return Detector(name, f"score >= {cut:.4g} (dev-calibrated)", from_score(values, cut), cut)


def table(gold_name: str, gold: np.ndarray, detectors: list[Detector], keep: np.ndarray,
          samples: int, seed: int) -> ErrorFreeTable:
    """Measures, 95 % bootstrap intervals and MCC significance clusters on the shared cells."""
    shared = keep & np.isfinite(gold)
    for detector in detectors:
        shared &= np.isfinite(detector.labels)
    if not shared.any():
        raise UserError("error-free detection: no cell has both a gold label and every detector's label")
    g = gold[shared]
    preds = np.array([d.labels[shared] for d in detectors])
    values = np.array([mcc_of(g, p) for p in preds]) if len(detectors) else np.array([])
    ranks = {}
    if len(detectors) > 1 and samples:
        null = mcc_nulls(g, preds, samples, np.random.default_rng(seed))
        ranks = ranking("mcc", [d.name for d in detectors], values, null).rank_of()
    rows = []
    for detector, p in zip(detectors, preds):
        row = {"detector": detector.name, "rule": detector.rule, **measures(g, p)}
        for measure, (low, high) in bootstrap(g, p, samples or 1000, seed).items():
            row[f"{measure}_ci"] = (low, high)
        row["rank"] = ranks.get(detector.name)
        rows.append(row)
    rows.sort(key=lambda r: (-r["mcc"], r["detector"]))
    return ErrorFreeTable(rows, gold_name, int(shared.sum()), float(g.mean()))


def run_error_free(pair: LanguagePair, gold: str, folders: list[Path], metrics: list[str] | None,
                   threshold: float = GOLD_THRESHOLD, samples: int = 1000, seed: int = 1234,
                   dev_fraction: float = 0.5, subsets: bool = False) -> ErrorFreeTable:
    """The table of one pair (see the module docstring); ``metrics`` are calibrated on the dev split."""
    systems = sorted(set(pair.system_names) | set(pair.ref_names))
    notes: list[str] = []
    labels = gold_labels(pair, systems, gold, folders, threshold, notes)
    detectors = campaign_detectors(pair, systems, gold, folders, threshold, subsets)
    keep = np.ones_like(labels, dtype=bool)
    if metrics:
        dev = dev_cells(pair, len(systems), dev_fraction, seed)
        for metric in metrics:
            full = pair.resolve_metric(metric)
            if full is None:
                raise UserError(f"--metric {metric}: no score file for {pair.lp}")
            values = _flat(pair, systems, pair.metric_seg(full) or {})
            detectors.append(score_detector(metric, values, labels, dev))
        keep = ~dev
        notes.append(f"--metric thresholds calibrated on {dev_fraction:.0%} of the segments (seed {seed}); "
                     "every row is measured on the other segments")
    result = table(gold, labels, detectors, keep, samples, seed)
    result.notes = notes
    return result

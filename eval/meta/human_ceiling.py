"""How well raters agree with each other, and a judge with each rater, on the same items.

Over the items rated by at least two raters (and scored by the judge, when there is one), for every
pair of raters and for the judge against each rater, on the items both sides scored:
Krippendorff's alpha (interval, on the scores; ordinal, on the MQM bands), Cohen's weighted kappa
on the bands, Pearson's r and Kendall's tau-b (definitions: :mod:`agreement_stats`). Summary rows:
the raters' mean over their pairs (the human ceiling), alpha of all raters together, the judge's
mean over the raters, and the judge's share of the ceiling (judge mean / raters' mean pairwise).

Intervals: a bootstrap over items (``samples`` draws, ``numpy.random.default_rng(seed)``); a draw
keeps every score of a picked item (all raters and the judge together), every row is computed on
the same draws, and the interval is the 2.5th to 97.5th percentile of the defined draws.

**MQM bands** (none / minor / major / critical; :mod:`tribunal.eval.meta.mqm_bands`) are cut where a segment's penalty reaches the weight
of one error of that severity in the WMT MQM scheme (Freitag et al., 2021, "Experts, Errors, and
Context", TACL: minor 1, major 5, non-translation 25; GEMBA-MQM's critical is 25 too): none at 0,
minor above -5, major above -25, critical at -25 and below. The lower three are
:func:`tribunal.eval.meta.judge_human.mqm_band`'s. Scores on ESA's 0-100 scale enter on MQM's scale
through tribunal's line ``mqm = (esa - 100) / 4`` (:func:`tribunal.programs.mqm.scoring.mqm_from_esa`: a
convention, not a published mapping; alpha, r and tau between raters are unchanged by it). Scores on
another scale (``other``) get no bands; a judge on another scale than the raters gets no alpha or kappa.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from tribunal.errors import UserError
from tribunal.eval.meta import agreement_stats as stats
from tribunal.eval.meta.mqm_bands import BAND_EDGES, BANDS, band_codes  # noqa: F401 - the one definition (mqm_bands)

SCALES = ("mqm", "esa", "other")
ROW_KINDS = ("rater pair", "raters: mean pairwise", "raters: all together", "judge vs rater",
             "judge: mean over raters", "judge / raters")


def statistic_names(kappa_weights: str = "quadratic") -> tuple[str, ...]:
    """The table's statistics, in column order."""
    return ("alpha_interval", "alpha_ordinal", f"kappa_{kappa_weights}", "pearson", "kendall_tau_b")


def on_mqm_scale(scores: np.ndarray, scale: str) -> np.ndarray | None:
    """Scores on MQM's scale (None for ``other``)."""
    if scale == "mqm":
        return np.asarray(scores, dtype=float)
    if scale == "esa":
        return (np.asarray(scores, dtype=float) - 100.0) / 4.0  # programs.mqm.scoring.mqm_from_esa
    return None


@dataclass(frozen=True)
class Ratings:
    """Several raters' scores of the same items (raters x items, NaN where unrated), and a judge's."""

    items: list[str]
    raters: list[str]
    scores: np.ndarray
    scale: str
    judge: np.ndarray | None = None
    judge_name: str = "judge"
    judge_scale: str = "other"


@dataclass
class Row:
    label: str
    kind: str
    items: int
    draws: dict[str, np.ndarray]  # statistic -> [point, draw 1, ..., draw B]
    reasons: dict[str, str] = field(default_factory=dict)  # why a point value is undefined

    def point(self, name: str) -> float:
        return float(self.draws[name][0])

    def interval(self, name: str) -> tuple[float, float]:
        return stats.percentile_interval(self.draws[name][1:])


@dataclass
class AgreementResult:
    rows: list[Row]
    statistics: tuple[str, ...]
    ratings: Ratings  # the items compared (rated by two or more raters; scored by the judge)
    samples: int
    seed: int
    notes: list[str] = field(default_factory=list)

    @property
    def items(self) -> list[str]:
        return self.ratings.items

    @property
    def raters(self) -> list[str]:
        return self.ratings.raters

    def row(self, kind: str) -> Row | None:
        return next((r for r in self.rows if r.kind == kind), None)


def multi_rated(ratings: Ratings) -> Ratings:
    """The items rated by two or more raters (and scored by the judge, when there is one)."""
    keep = (~np.isnan(ratings.scores)).sum(axis=0) >= 2
    if ratings.judge is not None:
        keep &= ~np.isnan(ratings.judge)
    chosen = np.flatnonzero(keep)
    return Ratings([ratings.items[i] for i in chosen], ratings.raters, ratings.scores[:, chosen], ratings.scale,
                   None if ratings.judge is None else ratings.judge[chosen], ratings.judge_name, ratings.judge_scale)


class _Sides:
    """Each side's values for every statistic: the score (as given or on MQM's scale) and band codes."""

    def __init__(self, ratings: Ratings):
        human = on_mqm_scale(ratings.scores, ratings.scale)
        judge = None if ratings.judge is None else on_mqm_scale(ratings.judge, ratings.judge_scale)
        same_scale = ratings.scale == ratings.judge_scale or (human is not None and judge is not None)
        self.scores = list(ratings.scores if human is None else human)
        self.bands: list[np.ndarray | None] = [None if human is None else band_codes(s) for s in self.scores]
        self.judge_comparable = same_scale
        if ratings.judge is not None:
            self.scores.append(ratings.judge if judge is None else judge)
            self.bands.append(None if judge is None else band_codes(judge))


def _pair_row(label: str, kind: str, sides: _Sides, a: int, b: int, w: np.ndarray, names: tuple[str, ...],
              kappa_weights: str, comparable: bool = True) -> Row:
    x, y = sides.scores[a], sides.scores[b]
    both = ~np.isnan(x) & ~np.isnan(y)
    wb = w * both
    x0, y0 = np.where(both, x, 0.0), np.where(both, y, 0.0)
    undefined = np.full(w.shape[0], np.nan)
    draws = {names[3]: stats.pearson(x0, y0, wb), names[4]: stats.kendall_tau_b(x0, y0, wb)}
    reasons = {}
    if comparable:
        draws[names[0]] = stats.alpha_interval(np.vstack([np.where(both, x, np.nan), np.where(both, y, np.nan)]), w)
    else:
        draws[names[0]] = undefined
        reasons[names[0]] = "the judge's scores are on another scale than the raters'"
    ba, bb = sides.bands[a], sides.bands[b]
    if ba is None or bb is None:
        draws[names[1]] = draws[names[2]] = undefined
        reasons[names[1]] = reasons[names[2]] = "bands need scores on the MQM or ESA scale"
    else:
        draws[names[1]] = stats.alpha_ordinal(np.vstack([np.where(both, ba, -1), np.where(both, bb, -1)]), w, len(BANDS))
        draws[names[2]] = stats.weighted_kappa(np.where(both, ba, 0), np.where(both, bb, 0), wb, len(BANDS), kappa_weights)
    row = Row(label, kind, int(both.sum()), {n: draws[n] for n in names}, reasons)
    _explain(row, names)
    return row


def _explain(row: Row, names: tuple[str, ...]) -> None:
    """A reason for every undefined point value that has none yet."""
    for name in names:
        if name in row.reasons or np.isfinite(row.point(name)):
            continue
        if row.items < 2:
            row.reasons[name] = "fewer than 2 items scored by both"
        elif name.startswith("kappa") or name == "alpha_ordinal":
            row.reasons[name] = "every score in one band"
        elif name == "alpha_interval":
            row.reasons[name] = "every score the same"
        else:
            row.reasons[name] = "a side gives every item the same score"


def _mean_row(label: str, kind: str, rows: list[Row], names: tuple[str, ...], items: int) -> Row:
    draws = {n: np.mean([r.draws[n] for r in rows], axis=0) for n in names}
    reasons = {n: next((r.reasons[n] for r in rows if n in r.reasons), "undefined for some pair")
               for n in names if not np.isfinite(draws[n][0])}
    return Row(label, kind, items, draws, reasons)


def _share_row(judge: Row, raters: Row, names: tuple[str, ...], items: int) -> Row:
    draws, reasons = {}, {}
    for n in names:
        ceiling = raters.draws[n]
        with np.errstate(invalid="ignore", divide="ignore"):
            draws[n] = np.where(ceiling > 0, judge.draws[n] / ceiling, np.nan)
        if not np.isfinite(draws[n][0]):
            reasons[n] = judge.reasons.get(n) or raters.reasons.get(n) or "the raters' mean agreement is not above 0"
    return Row("judge / raters mean pairwise", "judge / raters", items, draws, reasons)


def compute_agreement(ratings: Ratings, samples: int = 1000, seed: int = 1234,
                      kappa_weights: str = "quadratic") -> AgreementResult:
    """Every row of the agreement table (see the module docstring) with its bootstrap draws."""
    if len(ratings.raters) < 2:
        raise UserError(f"agreement needs at least two raters (found {len(ratings.raters)}: "
                        f"{', '.join(ratings.raters) or 'none'})")
    chosen = multi_rated(ratings)
    n = len(chosen.items)
    if n < 2:
        who = " and scored by the judge" if ratings.judge is not None else ""
        raise UserError(f"agreement needs at least 2 items rated by two or more raters{who} (found {n})")
    names = statistic_names(kappa_weights)
    w = np.vstack([np.ones(n), stats.bootstrap_weights(n, samples, seed)])
    sides = _Sides(chosen)
    rater_count = len(chosen.raters)
    pairs = [_pair_row(f"{chosen.raters[a]} vs {chosen.raters[b]}", "rater pair", sides, a, b, w, names, kappa_weights)
             for a, b in itertools.combinations(range(rater_count), 2)]
    rows = pairs + [_mean_row("raters: mean pairwise", "raters: mean pairwise", pairs, names, n),
                    _all_raters_row(sides, rater_count, w, names, n)]
    if chosen.judge is not None:
        versus = [_pair_row(f"{chosen.judge_name} vs {rater}", "judge vs rater", sides, rater_count, k, w, names,
                            kappa_weights, sides.judge_comparable) for k, rater in enumerate(chosen.raters)]
        judge_mean = _mean_row(f"{chosen.judge_name}: mean over raters", "judge: mean over raters", versus, names, n)
        rows += versus + [judge_mean, _share_row(judge_mean, rows[len(pairs)], names, n)]
    result = AgreementResult(rows, names, chosen, samples, seed)
    for row in rows:
        for name in names:
            missing = int(np.isnan(row.draws[name][1:]).sum())
            if np.isfinite(row.point(name)) and missing:
                result.notes.append(f"{row.label} {name}: undefined in {missing} of {samples} draws "
                                    "(left out of the interval)")
    return result


def _all_raters_row(sides: _Sides, raters: int, w: np.ndarray, names: tuple[str, ...], items: int) -> Row:
    """Krippendorff's alpha of all raters together (the pairwise statistics do not apply)."""
    undefined = np.full(w.shape[0], np.nan)
    draws = {n: undefined for n in names}
    reasons = {n: "a pairwise statistic" for n in names[2:]}
    draws[names[0]] = stats.alpha_interval(np.vstack(sides.scores[:raters]), w)
    if sides.bands[0] is None:
        reasons[names[1]] = "bands need scores on the MQM or ESA scale"
    else:
        draws[names[1]] = stats.alpha_ordinal(np.vstack(sides.bands[:raters]), w, len(BANDS))
    row = Row("raters: all together", "raters: all together", items, draws, reasons)
    _explain(row, names)
    return row

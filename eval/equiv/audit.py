"""Audit statistics of one rule on labelled pairs (pure: judgments in, numbers out).

The pairs are the perturbation suite's or a user's pair file (any kinds, labels given).

- share judged different per kind (over scored pairs; unscored are counted apart);
- order-flip rate: share of pairs whose first as-given and first reversed votes disagree;
- repeat consistency: share of pairs given the same verdict in every repeat (NaN with one repeat);
- agreement with the expected label (suite: wording kinds same, swaps different; files: their label).
"""

from __future__ import annotations

import math
from typing import Sequence

import pandas as pd

from tribunal.core.judgment import Judgment
from tribunal.eval.equiv.suite import SuitePair
from tribunal.eval.equiv.sweep import ordered_kinds


def _share(values: list[bool]) -> float:
    return sum(values) / len(values) if values else math.nan


def kind_shares(pairs: Sequence[SuitePair], judgments: Sequence[Judgment]) -> pd.DataFrame:
    """One row per kind present: pairs, scored, judged different, share different."""
    rows = []
    for kind in ordered_kinds([p.kind for p in pairs]):
        verdicts = [j.same for p, j in zip(pairs, judgments) if p.kind == kind]
        scored = [v for v in verdicts if v is not None]
        rows.append({"kind": kind, "pairs": len(verdicts), "scored": len(scored),
                     "different": sum(not v for v in scored), "share_different": _share([not v for v in scored])})
    return pd.DataFrame(rows)


def screen_routes(pairs: Sequence[SuitePair], judgments: Sequence[Judgment]) -> pd.DataFrame | None:
    """For a cascade, per kind then over all pairs: pairs the screen decided alone (and how), pairs
    sent to the judge, and the screen's wrong decisions among those it decided (against the labels).
    None for a rule that routes nothing."""
    if not any(j.route for j in judgments):
        return None
    rows = []
    kinds = ordered_kinds([p.kind for p in pairs])
    for kind in [*kinds, "all"]:
        mine = [(p, j) for p, j in zip(pairs, judgments) if kind in ("all", p.kind)]
        screened = [(p, j) for p, j in mine if j.route and j.route != "judge"]
        wrong = sum(j.same != p.expected_same for p, j in screened)
        rows.append({"kind": kind, "pairs": len(mine), "screened": len(screened),
                     "screened_same": sum(j.route == "screen-same" for _, j in screened),
                     "screened_different": sum(j.route == "screen-different" for _, j in screened),
                     "to_judge": sum(j.route == "judge" for _, j in mine), "screened_wrong": wrong,
                     "screened_error": wrong / len(screened) if screened else math.nan})
    return pd.DataFrame(rows)


def order_flip_rate(judgments: Sequence[Judgment]) -> float:
    return _share([j.order_flip for j in judgments if j.order_flip is not None])


def repeat_consistency(repeats: Sequence[Sequence[Judgment]]) -> float:
    """Share of pairs with one verdict across all repeats (pairs unscored in any repeat are left out)."""
    if len(repeats) < 2:
        return math.nan
    verdicts = [tuple(j.same for j in per_pair) for per_pair in zip(*repeats)]
    return _share([len(set(v)) == 1 for v in verdicts if None not in v])


def expected_agreement(pairs: Sequence[SuitePair], judgments: Sequence[Judgment]) -> float:
    return _share([j.same == p.expected_same for p, j in zip(pairs, judgments) if j.same is not None])


def rule_summary(pairs: Sequence[SuitePair], repeats: Sequence[Sequence[Judgment]]) -> dict[str, float]:
    """The scalar audit metrics of one rule (first repeat for per-pair metrics)."""
    first = repeats[0]
    all_judgments = [j for rep in repeats for j in rep]
    return {
        "order_flip_rate": order_flip_rate(first),
        "repeat_consistency": repeat_consistency(repeats),
        "expected_agreement": expected_agreement(pairs, first),
        "unscored": float(sum(j.same is None for j in first)),
        "calls": float(sum(j.calls for j in all_judgments)),
        "calls_saved": float(sum(j.calls_saved for j in all_judgments)),
    }


def _summary(judgment: Judgment) -> str:
    """The first vote's one-line summary, when the rule gives one (the chain rule: the deciding step)."""
    return str(judgment.votes[0].detail.get("summary", "")) if judgment.votes else ""


def items_table(label: str, pairs: Sequence[SuitePair], repeats: Sequence[Sequence[Judgment]]) -> pd.DataFrame:
    """Per-pair results of one rule, every repeat kept."""
    rows = []
    for r, judgments in enumerate(repeats):
        for pair, j in zip(pairs, judgments):
            rows.append({"rule": label, "repeat": r, "pair": pair.id, "kind": pair.kind,
                         "expected_same": pair.expected_same, "same": j.same, "score": j.score,
                         "order_flip": j.order_flip, "calls": j.calls, "calls_saved": j.calls_saved,
                         "route": j.route or "", "detail": _summary(j), "reason": j.reason or ""})
    return pd.DataFrame(rows)

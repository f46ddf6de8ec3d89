"""The human ceiling of an MT run: ``tribunal mt agreement``'s table for the cells the judge scored.

When the pair has several raters (WMT23 zh-en's eight rating files, WMT25's ``esa-human1`` /
``esa-human2``) and the judge scored two or more of the cells they rated, the run's summary and
MLflow get the raters' agreement on those cells, the judge's agreement with each rater, and the
judge's share of the ceiling (:mod:`tribunal.eval.meta.human_ceiling`), with 1000 bootstrap draws
(seed 1234). Otherwise nothing is added.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from collections import Counter

from tribunal.errors import UserError
from tribunal.eval.meta.human_ceiling import AgreementResult, Ratings, compute_agreement, multi_rated

SAMPLES = 1000
SEED = 1234


def run_ceiling(pair: Any, seg: dict[str, np.ndarray], judge_name: str, judge_scale: str = "mqm",
                samples: int = SAMPLES, seed: int = SEED) -> AgreementResult | None:
    """The agreement table of the judge's segment scores ``seg`` with the pair's raters, or None."""
    from tribunal.data.multi_ratings import cell_name, default_raters, wmt_raters  # heavy: pulls in pydantic

    judged = {cell_name(s, i): float(v) for s, values in seg.items() for i, v in enumerate(values) if np.isfinite(v)}
    try:
        names = default_raters(pair)
    except UserError:  # the pair has no scores by several raters
        return None
    if not _may_overlap(pair, names, set(judged)):
        return None
    table = wmt_raters(pair, names)
    judge = np.array([judged.get(item, np.nan) for item in table.items])
    ratings = Ratings(table.items, table.raters, table.scores, table.scale, judge, judge_name, judge_scale)
    if len(multi_rated(ratings).items) < 2:
        return None
    return compute_agreement(ratings, samples, seed)


def _may_overlap(pair: Any, names: list[str], judged: set[str]) -> bool:
    """Whether two or more judged cells may have two or more raters (a quick scan, before parsing ratings)."""
    from tribunal.data.multi_ratings import rated_cells, rater_file  # heavy: pulls in pydantic

    raters: Counter[str] = Counter()
    for name in names:
        cells = rated_cells(rater_file(pair, name), pair.n_segments, pair.cache)
        if cells is None:
            return True
        raters.update(cells & judged)
    return sum(count >= 2 for count in raters.values()) >= 2


def ceiling_summary(result: AgreementResult) -> dict[str, Any]:
    """The summary rows (raters' mean pairwise, the judge's mean, its share) for ``summary.json``."""
    rows = {"raters": result.row("raters: mean pairwise"), "judge": result.row("judge: mean over raters"),
            "share": result.row("judge / raters")}
    out: dict[str, Any] = {"items": len(result.items), "raters": list(result.raters), "samples": result.samples,
                           "seed": result.seed}
    for name in result.statistics:
        out[name] = {side: {"value": _finite(row.point(name)), "interval": [_finite(v) for v in row.interval(name)],
                            "why_undefined": row.reasons.get(name)} for side, row in rows.items() if row is not None}
    return out


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def log_ceiling(run: Any, result: AgreementResult) -> None:
    """The table's metrics (``agreement.<comparison>.<statistic>``) and the table as an artifact."""
    from tribunal.eval.meta.agreement_job import agreement_frame, agreement_metrics, items_frame  # heavy: pulls in pandas, pyarrow
    from tribunal.eval.meta.report import table_to_tsv  # heavy: pulls in pandas, pyarrow

    run.log_metrics(agreement_metrics(result))
    run.log_text(table_to_tsv(agreement_frame(result)), "agreement.tsv")
    run.log_text(table_to_tsv(items_frame(result.ratings)), "agreement_items.tsv")

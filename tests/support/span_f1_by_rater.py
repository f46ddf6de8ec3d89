"""Span F1 of a judge against every human rating file of a language pair.

zh-en has eight raters (``mqm.rater1`` … ``mqm.rater8``), en-de one merged file. Each rater is
scored on the cells it rated that the judge also covered; the ``mean`` row is the macro average
over raters, so a rater who rated more cells does not weigh more.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from tribunal.data.mtme import LanguagePair
from tribunal.core.spans import Span
from tribunal.eval.meta.spans.legacy import LEGACY_KEYS, legacy_scores

Cell = tuple[str, int]
"""(system, segment index)."""


def span_f1_by_rater(pair: LanguagePair, predicted: Mapping[Cell, Sequence[Span]]) -> pd.DataFrame:
    """One row per rating file plus a ``mean`` row; columns: the legacy figures
    (:data:`~tribunal.eval.meta.spans.legacy.LEGACY_KEYS`) and ``cells``."""
    rows = []
    for name in pair.rating_names:
        ratings = pair.ratings(name)
        cells = [
            (spans, ratings[system][segment])
            for (system, segment), spans in predicted.items()
            if system in ratings and ratings[system][segment] is not None
        ]
        scores = legacy_scores(cells)
        rows.append({"rater": name, **{k: scores[k] for k in (*LEGACY_KEYS, "cells")}})
    table = pd.DataFrame(rows)
    if len(table) > 1:
        numeric = table.drop(columns="rater")
        mean = {"rater": "mean", **{c: float(np.nanmean(numeric[c])) for c in numeric.columns}}
        table = pd.concat([table, pd.DataFrame([mean])], ignore_index=True)
    return table

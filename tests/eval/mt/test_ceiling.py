"""The human ceiling added to an MT run: only when the judged cells overlap the cells several people rated."""

from __future__ import annotations

import numpy as np

from tribunal.data.mtme import LanguagePair
from tribunal.eval.mt.ceiling import ceiling_summary, run_ceiling


def test_a_run_over_eight_rater_cells_gets_the_ceiling(wmt23_root):
    pair = LanguagePair(wmt23_root, "zh-en")
    seg = {"ONLINE-A": np.full(pair.n_segments, np.nan), "ONLINE-B": np.full(pair.n_segments, np.nan)}
    seg["ONLINE-A"][:40] = -1.0  # segments 0-39: one rater each
    assert run_ceiling(pair, seg, "J") is None
    seg["ONLINE-A"][964:970] = [0.0, -5.0, -1.0, -10.0, -2.0, -6.0]  # six of the eight-rater cells
    result = run_ceiling(pair, seg, "J", samples=100)
    assert result.items == [f"ONLINE-A:{k}" for k in range(964, 970)] and len(result.raters) == 8
    summary = ceiling_summary(result)
    assert summary["items"] == 6 and summary["samples"] == 100
    share = summary["pearson"]["share"]["value"]
    assert share == result.row("judge: mean over raters").point("pearson") / result.row("raters: mean pairwise").point("pearson")


def test_a_pair_with_one_rating_file_gets_none(wmt23_root):
    pair = LanguagePair(wmt23_root, "en-de")
    assert run_ceiling(pair, {"ONLINE-A": np.zeros(pair.n_segments)}, "J") is None

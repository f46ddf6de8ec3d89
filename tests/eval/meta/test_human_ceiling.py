"""The agreement table: pairs, the raters' mean, the judge's share, bands and scales, the WMT23 ceiling."""

from __future__ import annotations

import numpy as np
import pytest

from tribunal.errors import UserError
from tribunal.eval.meta import agreement_stats as stats
from tribunal.eval.meta.human_ceiling import Ratings, band_codes, compute_agreement, multi_rated, on_mqm_scale

R1 = [0.0, -1.0, -5.0, -6.0, -2.0, -25.0, 0.0, -1.0]
R2 = [0.0, -2.0, -5.0, -10.0, -1.0, -20.0, -1.0, np.nan]
R3 = [-1.0, -1.0, -6.0, -5.0, 0.0, -30.0, 0.0, -0.1]
JUDGE = [0.0, -5.0, -5.0, -5.0, 0.0, -25.0, -1.0, -1.0]
ITEMS = [f"i{k}" for k in range(8)]


def ratings(judge=JUDGE, scale="mqm", judge_scale="mqm") -> Ratings:
    return Ratings(ITEMS, ["r1", "r2", "r3"], np.array([R1, R2, R3]), scale,
                   None if judge is None else np.array(judge), "J", judge_scale)


def test_bands_are_cut_at_one_error_of_each_severity():
    scores = [0.0, -0.1, -4.9, -5.0, -24.9, -25.0, -60.0, np.nan, 3.0]
    assert band_codes(np.array(scores)).tolist() == [0, 1, 1, 2, 2, 3, 3, -1, 0]
    from tribunal.eval.meta.judge_human import MQM_BANDS, mqm_band

    above_critical = [v for v in scores if v > -25]  # the lower three bands are judge_human's
    assert [MQM_BANDS[c] for c in band_codes(np.array(above_critical))] == [mqm_band(v) for v in above_critical]
    assert on_mqm_scale(np.array([100.0, 80.0, 0.0]), "esa").tolist() == [0.0, -5.0, -25.0]
    assert on_mqm_scale(np.array([1.0]), "other") is None


def test_pairs_means_and_share_come_from_the_same_draws():
    result = compute_agreement(ratings(), samples=300, seed=3)
    labels = [r.label for r in result.rows]
    assert labels == ["r1 vs r2", "r1 vs r3", "r2 vs r3", "raters: mean pairwise", "raters: all together",
                      "J vs r1", "J vs r2", "J vs r3", "J: mean over raters", "judge / raters mean pairwise"]
    rows = {r.label: r for r in result.rows}
    assert rows["r1 vs r2"].items == 7 and rows["r1 vs r3"].items == 8  # r2 left item 7 unrated
    for name in result.statistics:
        pairs = np.array([rows[k].draws[name] for k in ("r1 vs r2", "r1 vs r3", "r2 vs r3")])
        assert np.allclose(rows["raters: mean pairwise"].draws[name], pairs.mean(axis=0), equal_nan=True)
        judge = np.array([rows[f"J vs r{k}"].draws[name] for k in (1, 2, 3)]).mean(axis=0)
        assert np.allclose(rows["J: mean over raters"].draws[name], judge, equal_nan=True)
        ceiling = rows["raters: mean pairwise"].draws[name]
        share = rows["judge / raters mean pairwise"].draws[name]
        defined = ceiling > 0
        assert np.allclose(share[defined], judge[defined] / ceiling[defined], equal_nan=True)
        assert rows["judge / raters mean pairwise"].point(name) == pytest.approx(judge[0] / ceiling[0])
    # A pair row is the statistic on the items both rated (r1 vs r2: items 0-6).
    assert rows["r1 vs r2"].point("pearson") == pytest.approx(np.corrcoef(R1[:7], R2[:7])[0, 1])
    assert rows["J vs r3"].point("kendall_tau_b") == pytest.approx(
        stats.kendall_tau_b(np.array(JUDGE), np.array(R3), np.ones(8))[0])
    import krippendorff

    assert rows["raters: all together"].point("alpha_interval") == pytest.approx(
        krippendorff.alpha(reliability_data=np.array([R1, R2, R3]), level_of_measurement="interval"))
    assert rows["raters: all together"].reasons["pearson"] == "a pairwise statistic"


def test_the_draws_are_seeded_and_intervals_hold_the_point():
    first = compute_agreement(ratings(), samples=200, seed=11)
    again = compute_agreement(ratings(), samples=200, seed=11)
    other = compute_agreement(ratings(), samples=200, seed=12)
    mean = first.row("raters: mean pairwise")
    assert mean.interval("pearson") == again.row("raters: mean pairwise").interval("pearson")
    assert mean.interval("pearson") != other.row("raters: mean pairwise").interval("pearson")
    low, high = mean.interval("alpha_interval")
    assert low <= mean.point("alpha_interval") <= high


def test_items_are_those_rated_by_two_or_more_raters_and_scored_by_the_judge():
    values = np.array([[0.0, -1.0, np.nan, -5.0], [0.0, np.nan, np.nan, -4.0], [-1.0, -2.0, -3.0, -5.0]])
    judge = np.array([0.0, -1.0, -2.0, np.nan])
    chosen = multi_rated(Ratings(["a", "b", "c", "d"], ["x", "y", "z"], values, "mqm", judge))
    assert chosen.items == ["a", "b"]  # c: one rater; d: no judge score
    assert multi_rated(Ratings(["a", "b", "c", "d"], ["x", "y", "z"], values, "mqm")).items == ["a", "b", "d"]


def test_scales_decide_which_statistics_apply():
    other = compute_agreement(ratings(scale="other", judge_scale="other"), samples=50)
    pair = other.row("rater pair")
    assert np.isnan(pair.point("alpha_ordinal")) and pair.reasons["alpha_ordinal"].startswith("bands need")
    assert np.isfinite(pair.point("alpha_interval")) and np.isfinite(other.row("judge vs rater").point("alpha_interval"))
    mixed = compute_agreement(ratings(judge_scale="other"), samples=50)
    versus = mixed.row("judge vs rater")
    assert np.isnan(versus.point("alpha_interval")) and "another scale" in versus.reasons["alpha_interval"]
    assert np.isnan(versus.point("kappa_quadratic")) and np.isfinite(versus.point("pearson"))
    assert "another scale" in mixed.row("judge / raters").reasons["alpha_interval"]
    # A judge on ESA's scale against MQM raters: compared on MQM's scale (100 -> 0, 80 -> -5).
    esa_judge = [100 + 4 * v for v in JUDGE]
    as_esa = compute_agreement(ratings(judge=esa_judge, judge_scale="esa"), samples=50)
    as_mqm = compute_agreement(ratings(), samples=50)
    for name in as_mqm.statistics:
        assert as_esa.row("judge vs rater").point(name) == pytest.approx(as_mqm.row("judge vs rater").point(name))


def test_undefined_values_say_why_and_too_little_data_is_refused():
    constant = compute_agreement(ratings(judge=[0.0] * 8), samples=50)
    versus = constant.row("judge vs rater")
    assert versus.reasons["pearson"] == "a side gives every item the same score"
    assert versus.point("kappa_quadratic") == 0.0  # one side in one band: observed = expected by chance
    flat = compute_agreement(Ratings(ITEMS, ["r1", "r2"], np.array([[-1.0] * 8, [-1.0] * 8]), "mqm"), samples=50)
    assert flat.row("rater pair").reasons == {"alpha_interval": "every score the same", "alpha_ordinal":
                                              "every score in one band", "kappa_quadratic": "every score in one band",
                                              "pearson": "a side gives every item the same score",
                                              "kendall_tau_b": "a side gives every item the same score"}
    with pytest.raises(UserError, match="at least two raters"):
        compute_agreement(Ratings(ITEMS, ["r1"], np.array([R1]), "mqm"))
    with pytest.raises(UserError, match="at least 2 items rated by two or more raters and scored by the judge"):
        compute_agreement(ratings(judge=[0.0] + [np.nan] * 7))
    with pytest.raises(ValueError, match="kappa weights"):
        compute_agreement(ratings(), kappa_weights="cubic")


def test_the_288_eight_rater_cells_of_wmt23_zh_en(wmt23_root):
    from tribunal.data.mtme import LanguagePair
    from tribunal.data.multi_ratings import wmt_raters

    table = wmt_raters(LanguagePair(wmt23_root, "zh-en"))
    assert table.raters == [f"mqm.rater{k}" for k in range(1, 9)] and table.scale == "mqm"
    chosen = multi_rated(Ratings(table.items, table.raters, table.scores, table.scale))
    assert len(chosen.items) == 288 and not np.isnan(chosen.scores).any()  # all 8 raters on each
    assert len({item.rsplit(":", 1)[1] for item in chosen.items}) == 18  # 18 segments x 16 systems
    # The gold MQM score of these cells is the raters' mean.
    pair = LanguagePair(wmt23_root, "zh-en")
    system, segment = chosen.items[0].rsplit(":", 1)
    assert pair.gold_seg[system][int(segment)] == pytest.approx(chosen.scores[:, 0].mean())

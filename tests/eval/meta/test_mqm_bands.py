"""One set of MQM band cut points: the raters' four bands and the judge's three agree everywhere."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tribunal.eval.meta import human_ceiling, judge_human
from tribunal.eval.meta.mqm_bands import BAND_EDGES, BANDS, JUDGE_BANDS, band_codes, judge_band

EDGES_AND_AROUND = [0.0, 0.5, -0.0, -0.1, -1.0, -4.9999, -5.0, -5.1, -24.9, -25.0, -25.1, -100.0]


def test_the_cuts_are_one_major_and_one_non_translation():
    assert BAND_EDGES == (-25.0, -5.0, 0.0)


@pytest.mark.parametrize("score", EDGES_AND_AROUND)
def test_the_judges_band_is_the_raters_band_with_critical_as_major(score):
    four = BANDS[band_codes(np.array([score]))[0]]
    assert judge_band(score) == ("major" if four == "critical" else four)


def test_both_modules_use_the_one_definition():
    assert human_ceiling.band_codes is band_codes and human_ceiling.BANDS is BANDS
    assert judge_human.MQM_BANDS is JUDGE_BANDS
    assert [judge_human.mqm_band(s) for s in EDGES_AND_AROUND] == [judge_band(s) for s in EDGES_AND_AROUND]


def test_unscored_has_no_band():
    assert judge_band(None) is None and judge_band(math.nan) is None
    assert band_codes(np.array([math.nan])).tolist() == [-1]

"""MQM weights: WMT's for M-MAD, GEMBA-MQM's own for the baseline."""

import pytest

from tests.support.original_mmad_cost import original_mmad_calls
from tribunal.programs.mqm.scoring import gemba_mqm_score, wmt_mqm_score
from tribunal.signatures.mqm.errors import DimensionError, GembaError


def err(dimension, subcategory, severity):
    return DimensionError(span="x", dimension=dimension, subcategory=subcategory, severity=severity)


def test_wmt_weights():
    assert wmt_mqm_score([err("accuracy", "mistranslation", "major")]) == -5
    assert wmt_mqm_score([err("style", "awkward", "minor")]) == -1
    assert wmt_mqm_score([err("fluency", "punctuation", "minor")]) == pytest.approx(-0.1)
    assert wmt_mqm_score([err("fluency", "punctuation", "major")]) == -5
    assert wmt_mqm_score([err("accuracy", "non-translation", "major")]) == -25
    assert wmt_mqm_score([]) == 0


def test_gemba_scheme_caps_at_25_and_counts_five_errors():
    critical = GembaError(span="x", category="accuracy", severity="critical")
    major = GembaError(span="x", category="accuracy", severity="major")
    assert gemba_mqm_score([critical, critical]) == -25
    assert gemba_mqm_score([major] * 4) == -20
    assert gemba_mqm_score([GembaError(span="x", category="style", severity="minor")] * 7) == -5


def test_original_mmad_call_count():
    assert original_mmad_calls({}) == 5  # 4 agents + the stage-1 merge call; no final judge on a clean segment
    assert original_mmad_calls({"accuracy": 1}) == 9
    assert original_mmad_calls({d: 3 for d in ("accuracy", "fluency", "style", "terminology")}) == 42
    assert original_mmad_calls({}, found=True) == 6  # minor errors only: nothing debated, the judge still runs

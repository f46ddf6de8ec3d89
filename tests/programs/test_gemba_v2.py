"""GEMBA-MQM V2's preset: its scoring (25/5/1, minor punctuation 0.1, no cap), the judge, 10 samples aggregated."""

from __future__ import annotations

import asyncio

import pytest

from tests.support.mqm_fakes import ScriptedEngine
from tribunal.core.judges import JUDGES
from tribunal.eval.mt.combine import combine
from tribunal.eval.mt.ensemble import SamplingSettings
from tribunal.programs.mqm.gemba_v2 import GEMBA_V2_PRESET, GembaMQMV2Judge, gemba_v2_score
from tribunal.programs.mqm.roles import RoleLMs
from tribunal.programs.mqm.scoring import gemba_mqm_score
from tribunal.programs.tribunal_lm import TribunalLM
from tribunal.signatures.mqm.errors import GembaError


def _error(severity: str, subcategory: str = "mistranslation") -> GembaError:
    return GembaError(span="x", category="accuracy" if subcategory != "punctuation" else "fluency",
                      subcategory=subcategory, severity=severity)


def test_scoring_counts_every_error_without_a_cap_and_punctuation_at_a_tenth():
    errors = [_error("critical"), _error("major"), _error("minor"), _error("minor", "punctuation"),
              _error("major"), _error("major")]
    assert gemba_v2_score(errors) == pytest.approx(-(25 + 5 + 1 + 0.1 + 5 + 5))
    assert gemba_mqm_score(errors) == -25  # V1: the first 5 errors, capped at 25
    assert gemba_v2_score([_error("major", "punctuation")]) == -5  # only a minor punctuation error is 0.1


@pytest.mark.parametrize("judging", ["threads", "async"])
def test_judge_scores_its_gemba_call_the_v2_way(judging):
    answer = {"errors": [{"span": "Katze", "category": "fluency", "subcategory": "punctuation",
                          "severity": "minor", "is_source_error": False}]}
    engine = ScriptedEngine(lambda name, inputs: answer)
    lm = TribunalLM("scripted/judge", engine=engine, cache=False, num_retries=0)  # awaitable with a sync engine
    judge = GembaMQMV2Judge(RoleLMs(lm, {}))
    inputs = dict(source="The cat.", translation="Die Katze.", source_lang="English", target_lang="German")
    out = judge(**inputs) if judging == "threads" else asyncio.run(judge.acall(**inputs))  # aforward: V2's score too
    assert engine.names() == ["GembaMQM"] and out.score == pytest.approx(-0.1)
    assert JUDGES.get("gemba-mqm-v2").role_names() == ("gemba",)


def test_preset_aggregates_ten_samples_by_dropping_the_outlier_then_rrwa():
    assert GEMBA_V2_PRESET == {"program": "gemba-mqm-v2", "samples": 10, "combine": "gemba-v2"}
    settings = SamplingSettings(samples=GEMBA_V2_PRESET["samples"], combine=GEMBA_V2_PRESET["combine"])
    assert settings.name_parts() == ["k10", "gemba-v2"] and settings.needed == 5
    scores = [-1, -1, -2, -2, -2, -1, -3, -1, -2, -30]  # -30 lies beyond 2 sigma of the mean (-4.5, sigma 8.52)
    result = combine(scores, GEMBA_V2_PRESET["combine"])
    assert 9 not in result.kept and len(result.kept) == 9
    kept = sorted((scores[i] for i in result.kept), reverse=True)
    weights = [1 / r for r in range(1, 10)]
    assert result.value == pytest.approx(sum(w * s for w, s in zip(weights, kept)) / sum(weights))

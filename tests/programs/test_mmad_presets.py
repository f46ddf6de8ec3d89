"""M-MAD presets: one switch apart, coherent, named in signatures and exports, and their LM calls per item."""

from __future__ import annotations

from pathlib import Path

import dspy
import pytest
from pydantic import ValidationError

from tests.support.mqm_fakes import ScriptedEngine, synthetic_judge
from tribunal.core.mt_judgment import MTJudgment
from tribunal.eval.mt.config import EvaluateConfig
from tribunal.optimizers.program_settings import build_configured, program_config
from tribunal.programs.lm import LMSettings
from tests.support.original_mmad_cost import original_mmad_calls
from tribunal.programs.mqm.mmad import MMAD, MMADConfig
from tribunal.programs.mqm.presets import PRESETS
from tribunal.programs.mqm.roles import RoleLMs


def test_a_preset_fills_every_switch_and_explicit_switches_win():
    assert {k: getattr(MMADConfig(), k) for k in PRESETS["paper"]} == PRESETS["paper"]
    assert {k: getattr(MMADConfig(preset="lean"), k) for k in PRESETS["lean"]} == PRESETS["lean"]
    tweaked = MMADConfig(preset="lean", opening="debater", consensus_check="separate")
    assert (tweaked.opening, tweaked.consensus_check, tweaked.debaters) == ("debater", "separate", "free")
    assert MMADConfig(judge_policy="always").debaters == "minor-leaning"


@pytest.mark.parametrize("switches, message", [
    ({"opening": "stage1"}, "opening=stage1 needs debaters=free"),
    ({"consensus_check": "inline"}, "consensus_check=inline needs debaters=free"),
    ({"topic": "category"}, "topic=category needs debaters=free"),
    ({"preset": "lean", "opening": "downgraded"}, "opening=downgraded needs debaters=minor-leaning"),
    ({"preset": "lean", "strategy": "consultancy-review", "debaters": "minor-leaning", "opening": "downgraded",
      "consensus_check": "separate"}, "consultancy-review has a single debater"),
    ({"preset": "draft"}, "Input should be 'paper' or 'lean'"),
])
def test_incoherent_switches_are_rejected_with_the_reason(switches, message):
    with pytest.raises(ValidationError, match=message):
        MMADConfig(**switches)


def test_the_preset_is_always_serialised_and_the_lean_structure_differs():
    assert MMADConfig().model_dump(mode="json", exclude_defaults=True) == {"preset": "paper"}
    assert program_config("mmad", {"preset": "lean"})["preset"] == "lean"  # optimize --set preset=lean
    lean = build_configured("mmad", program_config("mmad", {"preset": "lean"}))
    paths = [path for path, _ in lean.named_predictors()]
    assert "debate.defender" in paths and "debate.debaters.accuracy" not in paths
    assert "debate.debaters.accuracy" in [path for path, _ in MMAD().named_predictors()]


def evaluate_config(**mmad) -> EvaluateConfig:
    return EvaluateConfig(data=Path("."), lp="zh-en", lm=LMSettings(model="openai/x"), mmad=mmad)


def test_the_preset_is_part_of_the_run_signature_name_and_demo_count():
    paper, lean = evaluate_config(), evaluate_config(preset="lean")
    assert "|preset:paper|" in paper.config_signature() and "|tweaks:none|" in paper.config_signature()
    assert "|preset:lean|" in lean.config_signature() and paper.config_signature() != lean.config_signature()
    tweaked = evaluate_config(preset="lean", opening="debater").config_signature()
    assert "|tweaks:opening=debater|" in tweaked
    assert (paper.metric_name, lean.metric_name) == ("M-MAD", "M-MAD-lean")
    assert (paper.demo_count, lean.demo_count) == (4, 2) and "|demos:4|" in paper.config_signature()
    assert evaluate_config(preset="lean", ablate=["stage2"]).metric_name == "M-MAD-lean-no-stage2"


def calls_per_item(preset: str, translations: list[str]) -> list[tuple[int, dict, bool]]:
    """``(LM calls, {dimension: debate rounds}, stage 1 found an error)`` per translation."""
    engine = ScriptedEngine(synthetic_judge)
    program = MMAD(MMADConfig(preset=preset), RoleLMs(dspy.LM("scripted/judge", engine=engine, cache=False)))
    rows = []
    for translation in translations:
        before = len(engine.calls)
        out = program(source="source", translation=translation, source_lang="English", target_lang="German")
        found = any(t.errors for t in out.transcript if t.stage == "stage1")
        rows.append((len(engine.calls) - before, {d: v["rounds"] for d, v in MTJudgment.of(out).debates.items()}, found))
    return rows


def test_calls_per_item_of_both_presets_against_the_original_code_on_the_same_outcomes():
    translations = [f"Satz Nummer {i} mit einem ziemlich langen Wort{'x' * (i % 5)}." for i in range(40)]
    paper, lean = calls_per_item("paper", translations), calls_per_item("lean", translations)
    for (p_calls, p_rounds, found), (l_calls, l_rounds, l_found) in zip(paper, lean):
        assert found == l_found  # the same stage-1 findings
        assert all(l_rounds[d] == r for d, r in p_rounds.items())  # the same debates end in the same round
        assert p_calls == original_mmad_calls(p_rounds, found) - 1  # all but the unused stage-1 merge call
        assert l_calls <= original_mmad_calls(l_rounds)
    assert any(p_rounds for _, p_rounds, _ in paper) and any(len(r) > len(p[1]) for (_, r, _), p in zip(lean, paper))

"""The paper preset's fixed demos: 3 per dimension (major, clean, minor) + 1 non-translation, deterministic."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from tribunal.programs.mqm.demos import mmad_demos
from tribunal.programs.mqm.fixed_demos import fixed_demos
from tribunal.programs.mqm.mmad import MMADConfig
from tribunal.signatures.mqm.errors import DIMENSIONS, AccuracyError, GuidedStyleError

from .test_mmad_paper import Recorder, run

HEADER = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\tcomment\n"
ROWS = [  # one row per error; (system, talk, seg, source, target with <v> marks, category, severity)
    ("S", "talk.1", 1, "The dog barks.", "Der <v>Katze</v> bellt.", "Accuracy/Mistranslation", "Major"),
    ("S", "talk.1", 2, "It is raining.", "Es regnet.", "No-error", "No-error"),
    ("S", "talk.1", 3, "A small house.", "Ein <v>kleines</v> Haus.", "Accuracy/Mistranslation", "Minor"),
    ("S", "talk.2", 4, "Bees see colours.", "Bienen sehen Farben.", "No-error", "No-error"),
    ("S", "talk.1", 5, "We went home.", "Wir <v>ging</v> nach Hause.", "Fluency/Grammar", "Major"),
    ("S", "talk.1", 6, "Yes, we can.", "Ja<v>.</v> wir können.", "Fluency/Punctuation", "Minor"),
    ("S", "talk.1", 7, "Look at this.", "Schauen Sie <v>auf dieses Ding</v>.", "Style/Awkward", "Major"),
    ("S", "talk.1", 8, "Thank you all.", "Danke <v>an alle Leute</v>.", "Style/Awkward", "Minor"),
    ("S", "talk.1", 9, "The black hole.", "Das schwarze <v>Gat</v>.", "Terminology/Inappropriate for context",
     "Major"),
    ("S", "talk.1", 10, "The pollen.", "Der <v>Staub</v>.", "Terminology/Inappropriate for context", "Minor"),
]


@pytest.fixture
def pool(tmp_path: Path) -> Path:
    lines = [f"{s}\t{talk}\t{talk[-1]}\t{seg}\tr1\t{src}\t{tgt}\t{cat}\t{sev}\t\n" for s, talk, seg, src, tgt, cat, sev
             in ROWS]
    (tmp_path / "mqm_ted_ende.tsv").write_text(HEADER + "".join(lines), encoding="utf-8")
    return tmp_path


def first_clean(key: str) -> int:
    """The documented order: sha256 of "<key>\\t<system>\\t<seg_id>\\t<rater>"."""
    return min((2, 4), key=lambda seg: hashlib.sha256(f"{key}\tS\t{seg}\tr1".encode()).hexdigest())


def test_each_agent_gets_a_major_a_clean_and_a_minor_demo_then_the_non_translation_one(pool):
    demos = fixed_demos(pool, "en-de", 4)
    assert set(demos) == set(DIMENSIONS) and all(len(d) == 4 for d in demos.values())
    accuracy = demos["accuracy"]
    assert accuracy[0].errors == [AccuracyError(span="Katze", subcategory="mistranslation", severity="major")]
    assert accuracy[1].errors == [] and accuracy[1].source == {2: "It is raining.", 4: "Bees see colours."}[
        first_clean("accuracy")]
    assert accuracy[2].errors == [AccuracyError(span="kleines", subcategory="mistranslation", severity="minor")]
    assert demos["style"][0].errors == [GuidedStyleError(span="auf dieses Ding", subcategory="awkward",
                                                         severity="major")]
    assert [d.translation for d in demos["terminology"][::2]] == ["Das schwarze Gat.", "Der Staub."]
    assert all(d.source_lang == "English" and d.target_lang == "German" for d in accuracy)


def test_the_non_translation_demo_pairs_a_source_with_a_translation_from_another_talk(pool):
    demos = fixed_demos(pool, "en-de", 4)
    last = {dimension: d[-1] for dimension, d in demos.items()}
    assert len({(d.source, d.translation) for d in last.values()}) == 1  # the same demo for every agent
    nt = last["accuracy"]
    texts = {2: ("It is raining.", "Es regnet."), 4: ("Bees see colours.", "Bienen sehen Farben.")}
    first = first_clean("non-translation")
    assert nt.source == texts[first][0] and nt.translation == texts[6 - first][1]
    assert [(e.span, e.subcategory, e.severity) for e in nt.errors] == [(nt.translation, "non-translation", "major")]
    assert last["style"].errors[0].subcategory == "non-translation"  # every agent may report it


def test_the_rule_is_deterministic_and_other_counts_cycle_the_classes(pool):
    assert fixed_demos(pool, "en-de", 4) == fixed_demos(pool, "en-de", 4)
    two = fixed_demos(pool, "en-de", 2)["fluency"]
    assert [d.translation for d in two] == ["Wir ging nach Hause.", fixed_demos(pool, "en-de", 4)["fluency"][-1]
                                            .translation]


def test_the_stage1_ablation_keeps_its_demos_in_the_paper_preset_only(pool):
    paper = mmad_demos(MMADConfig(ablate=("stage1",)), pool, "en-de", 4)
    assert list(paper) == ["coupled"] and len(paper["coupled"]) == 4
    assert paper["coupled"][0].errors[0].dimension in DIMENSIONS and \
        paper["coupled"][-1].errors[0].subcategory == "non-translation"
    assert mmad_demos(MMADConfig(preset="lean", ablate=("stage1",)), pool, "en-de", 2) == {}
    lean = mmad_demos(MMADConfig(preset="lean"), pool, "en-de", 2)
    assert set(lean) == set(DIMENSIONS) and all(len(d) <= 2 for d in lean.values())


def test_four_demos_reach_every_stage1_prompt(pool):
    demos = mmad_demos(MMADConfig(), pool, "en-de", 4)
    recorder = Recorder({"accuracy": [], "fluency": [], "style": [], "terminology": []})
    _, engine = run(recorder, demos=demos)
    assert engine.sizes == [2 * 4 + 1] * 4  # 4 user/assistant demo pairs, then the segment


@pytest.mark.skipif(not (Path(os.environ.get("TRIBUNAL_DATA", "/nonexistent")) / "mqm-ted").is_dir(),
                    reason="TED MQM data not found (set TRIBUNAL_DATA)")
@pytest.mark.parametrize("lp", ["zh-en", "en-de", "he-en"])
def test_the_real_ted_pool_gives_four_demos_per_agent(lp):
    demos = fixed_demos(Path(os.environ["TRIBUNAL_DATA"]) / "mqm-ted", lp, 4)
    for examples in demos.values():
        severities = [sorted({e.severity for e in d.errors}) for d in examples]
        assert "major" in severities[0] and severities[1:] == [[], ["minor"], ["major"]]
        assert examples[-1].errors[0].subcategory == "non-translation"

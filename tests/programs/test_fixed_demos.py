"""The paper preset's fixed demos: 3 per dimension (major, clean, minor) + 1 non-translation, deterministic."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from tribunal.programs.mqm.fixed_demos import mmad_demos
from tribunal.programs.mqm.fixed_demos import fixed_demos, mix_for
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


def classes(examples) -> list[str]:
    """Each demo's class: major (a major error), minor (only minor errors) or clean."""
    return ["major" if any(e.severity == "major" for e in d.errors) else "minor" if d.errors else "clean"
            for d in examples]


def test_each_agent_follows_the_published_severity_mix_then_the_non_translation_demo(pool):
    demos = fixed_demos(pool, "en-de", 4)
    assert set(demos) == set(DIMENSIONS) and all(len(d) == 4 for d in demos.values())
    accuracy = demos["accuracy"]
    assert accuracy[0].errors == [AccuracyError(span="Katze", subcategory="mistranslation", severity="major")]
    assert accuracy[1].errors == [] and accuracy[1].source == {2: "It is raining.", 4: "Bees see colours."}[
        first_clean("accuracy")]
    assert accuracy[2].errors == [AccuracyError(span="kleines", subcategory="mistranslation", severity="minor")]
    # style: minor, clean, minor (the pool has one minor style item, so the third falls back to clean)
    assert demos["style"][0].errors == [GuidedStyleError(span="an alle Leute", subcategory="awkward",
                                                         severity="minor")]
    assert classes(demos["style"][:3]) == ["minor", "clean", "clean"]
    # terminology: clean, minor, clean; no major demo outside accuracy
    assert classes(demos["terminology"][:3]) == ["clean", "minor", "clean"]
    assert demos["terminology"][1].translation == "Der Staub."
    assert all("major" not in classes(demos[d][:3]) for d in ("fluency", "style", "terminology"))
    assert all(d.source_lang == "English" and d.target_lang == "German" for d in accuracy)


def test_he_en_has_no_major_demo_and_other_pairs_take_the_zh_en_en_de_mix():
    assert mix_for("he-en", "accuracy") == ("minor", "clean", "minor")
    assert mix_for("zh-en", "accuracy") == mix_for("en-de", "accuracy") == ("major", "clean", "minor")
    assert mix_for("ja-zh", "accuracy") == ("major", "clean", "minor")
    assert mix_for("he-en", "coupled") == ("minor", "clean", "minor")


def test_the_non_translation_demo_pairs_a_source_with_the_translation_of_its_neighbouring_segment(pool):
    demos = fixed_demos(pool, "en-de", 4)
    last = {dimension: d[-1] for dimension, d in demos.items()}
    assert len({(d.source, d.translation) for d in last.values()}) == 1  # the same demo for every agent
    nt = last["accuracy"]
    # The clean segments are 2 (talk.1) and 4 (talk.2, alone in its talk: no neighbour), so whichever
    # comes first in the order, the demo is segment 2's source with segment 3's translation (same talk).
    assert (nt.source, nt.translation) == ("It is raining.", "Ein kleines Haus.")
    assert [(e.span, e.subcategory, e.severity) for e in nt.errors] == [(nt.translation, "non-translation", "major")]
    assert last["style"].errors[0].subcategory == "non-translation"  # every agent may report it


def test_the_rule_is_deterministic_and_other_counts_repeat_the_mix(pool):
    assert fixed_demos(pool, "en-de", 4) == fixed_demos(pool, "en-de", 4)
    two = fixed_demos(pool, "en-de", 2)
    assert [d.translation for d in two["fluency"]] == ["Ja. wir können.", "Ein kleines Haus."]
    assert classes(two["accuracy"][:1]) == ["major"] and classes(two["terminology"][:1]) == ["clean"]
    # 7 asks for 6 accuracy demos: major, clean, minor, then again; the pool runs out after one more clean
    assert classes(fixed_demos(pool, "en-de", 7)["accuracy"][:-1]) == ["major", "clean", "minor", "clean"]


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


PUBLISHED = {  # code/few_shot_demos{,_de,_he}.py of github.com/SU-JIAYUAN/M-MAD, demo by demo
    "zh-en": {"accuracy": ["major", "clean", "minor"], "fluency": ["minor", "clean", "minor"],
              "terminology": ["clean", "minor", "clean"], "style": ["minor", "clean", "minor"]},
    "en-de": {"accuracy": ["major", "clean", "minor"], "fluency": ["minor", "clean", "minor"],
              "terminology": ["clean", "minor", "clean"], "style": ["minor", "clean", "minor"]},
    "he-en": {"accuracy": ["minor", "clean", "minor"], "fluency": ["minor", "clean", "minor"],
              "terminology": ["clean", "minor", "clean"], "style": ["minor", "clean", "minor"]},
}
TED = Path(os.environ.get("TRIBUNAL_DATA", "/nonexistent")) / "mqm-ted"


@pytest.mark.skipif(not TED.is_dir(), reason="TED MQM data not found (set TRIBUNAL_DATA)")
@pytest.mark.parametrize("lp", ["zh-en", "en-de", "he-en"])
def test_the_real_ted_pool_gives_the_published_severity_mix_per_dimension_and_pair(lp):
    demos = fixed_demos(TED, lp, 4)
    assert {dimension: classes(examples[:3]) for dimension, examples in demos.items()} == PUBLISHED[lp]
    for examples in demos.values():
        assert examples[-1].errors[0].subcategory == "non-translation" and len(examples) == 4
        assert len({d.source for d in examples}) == 4  # no source shown twice


@pytest.mark.skipif(not TED.is_dir(), reason="TED MQM data not found (set TRIBUNAL_DATA)")
@pytest.mark.parametrize("lp", ["zh-en", "en-de"])
def test_the_real_non_translation_demo_is_the_next_segment_of_the_same_talk(lp):
    from tribunal.data.mqm_tsv import read_mqm_tsv
    from tribunal.programs.mqm.demos import ted_file_for

    nt = fixed_demos(TED, lp, 4)["accuracy"][-1]
    rows = list(read_mqm_tsv(TED / ted_file_for(lp)))
    where = {(r.system, r.doc, r.seg_id) for r in rows if r.source == nt.source}
    neighbours = {(r.system, r.doc, r.seg_id) for r in rows if r.target == nt.translation}
    assert any((system, doc, seg + step) in neighbours for system, doc, seg in where for step in (1, -1))
    assert all(r.target != nt.translation for r in rows if r.source == nt.source)  # a wrong translation

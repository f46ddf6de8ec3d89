"""``tribunal optimize --program joint-mqm``: a judge of a source's candidates is tuned on group examples (one per
source: its candidates and their golds), and every per-translation objective scores the group's members.

The scripted LM (:mod:`tests.optimizers.mqm_task`) answers as the human TED annotator only when the prompt
carries demos, so the tuned judge beats the untuned one on dev only if the labelled groups became demos.
"""

from __future__ import annotations

from tests.optimizers.mqm_task import labeled_optimize
from tribunal.optimizers.group_examples import group_by_source, member_pairs
from tribunal.optimizers.mt_metric import MQMMetric
from tribunal.optimizers.training_data import load_training_data

TRAIN, DEV = "mqm-ted:en-de:0-24", "mqm-ted:en-de:200-240"


def test_examples_are_grouped_by_source_and_a_failed_group_leaves_its_members_unscored(ted_en_de):
    examples = load_training_data(TRAIN).examples
    groups = group_by_source(examples)
    assert sum(len(g.members) for g in groups) == len(examples) and len(groups) < len(examples)
    assert all(g.candidates == [m.translation for m in g.members] for g in groups)
    assert all(g.seg_id == m.seg_id for g in groups for m in g.members)
    _, drawn = member_pairs([None], [groups[0].copy(_draw=3)])
    assert {m.get("_draw") for m in drawn} == {3}
    predictions, golds = member_pairs([None, None], groups)
    assert predictions == [None] * len(examples) and golds == [m for g in groups for m in g.members]
    assert not MQMMetric().outcome(groups[0], None).scored


def test_optimize_tunes_the_joint_judge_on_groups(tmp_path, monkeypatch, ted_en_de):
    _, export = labeled_optimize(tmp_path, monkeypatch, "joint-mqm", TRAIN, DEV, 1, "kendall=0.5,item=0.5")
    metadata = export["metadata"]
    assert metadata["dev_score"] > metadata["dev_score_untuned"] + 0.1, metadata
    assert metadata["dev_objective"] > metadata["dev_objective_untuned"], metadata
    [demo] = export["state"]["annotate"]["demos"]
    assert [j["candidate"] for j in demo["judgments"]] == [c["label"] for c in demo["candidates"]]

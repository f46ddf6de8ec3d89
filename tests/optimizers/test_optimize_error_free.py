"""``tribunal optimize --program error-free --objective mcc-error-free``, end to end on the scripted LM.

The scripted LM (:mod:`tests.optimizers.mqm_task`) answers the binary question as the human TED
annotation does only when the prompt carries demos, so the tuned judge's dev MCC beats the untuned
one's only if the labelled examples became its ``decide`` demos.
"""

from __future__ import annotations

from tests.optimizers.mqm_task import labeled_optimize

TRAIN, DEV = "mqm-ted:en-de:0-6", "mqm-ted:en-de:200-212"


def test_optimize_tunes_the_binary_judge_by_its_mcc(tmp_path, monkeypatch, ted_en_de):
    result, export = labeled_optimize(tmp_path, monkeypatch, "error-free", TRAIN, DEV, 2, "mcc-error-free")
    metadata = export["metadata"]
    assert metadata["objective"] == "mcc-error-free"
    assert metadata["dev_objective"] > metadata["dev_objective_untuned"] + 0.2, metadata
    demos = export["state"]["decide"]["demos"]
    assert len(demos) == 2 and all(isinstance(d["error_free"], bool) for d in demos)
    assert "mcc-error-free" in result.output

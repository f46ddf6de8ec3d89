"""The post-hoc engagement judge on scripted replies: clean, written like real models, and unusable."""

import dspy
import pytest

from tribunal.programs.hyp_engagement import EngagementJudge
from tribunal.signatures.hyp_engagement import ENGAGEMENT_LABELS, EngagementLabel

DEMANDS = ["Show serum B12 in the fast progressors.", "Rule out diabetes duration as the driver.",
           "Explain why MMA is raised.", "Cite a randomised trial."]
CHALLENGE = dict(demands=DEMANDS, hypothesis_before="Statement: metformin lowers B12, which damages nerves.",
                 responses=["B12 was 30% lower in the top exposure tertile [1].", "Withdrawn: duration may confound; "
                            "the claim is now limited to an association.", "MMA is a tissue marker [2]; the ileal "
                            "step remains untested.", None],
                 hypothesis_after="Statement: long metformin use is associated with lower B12 and neuropathy.")


def _judge(scripted, answer):
    lm, engine = scripted.scripted_lm(lambda system, user: answer)
    with dspy.context(lm=lm):
        return EngagementJudge()(**CHALLENGE), engine


def test_clean_answer_gives_one_typed_label_per_demand(scripted):
    out, engine = _judge(scripted, {"demand_labels": ["answered", "conceded", "partial", "dropped"]})
    assert out.demand_labels == ["answered", "conceded", "partial", "dropped"] and out.error is None
    assert len(engine.calls) == 1  # one call per challenge, not per demand
    system, user = engine.calls[0]
    # the paper's definitions are the instruction
    assert "gives a reason, evidence, or a stated\n  ground for refusing it" in system.replace("        ", "")
    assert "withdraws, corrects or downgrades its claim" in system
    assert "takes up only part of the demand" in system and "does not take up the demand" in system
    assert '"enum": ["answered", "conceded", "partial", "dropped"]' in system
    assert "(no response)" in user  # a missing response is shown as such


def test_an_answer_written_the_way_real_models_write_parses_to_the_same_labels(scripted):
    reply = ("Sure! Here is my assessment of how the author engaged with each demand.\n\n"
             "[[ ## demand_labels ## ]]\n"
             '["Answered", "Conceded", "Partial", "Dropped"]\n\n'
             "[[ ## completed ## ]]\n\nLet me know if you would like a justification for each label.")
    out, engine = _judge(scripted, reply)
    assert out.demand_labels == ["answered", "conceded", "partial", "dropped"] and out.error is None
    assert len(engine.calls) == 1  # no extra paid call


@pytest.mark.parametrize("text", ["Answered", " answered ", "ANSWERED"])
def test_label_type_accepts_any_case(text):
    assert EngagementLabel(text) == "answered"


def test_a_label_outside_the_four_is_unscored(scripted):
    out, _ = _judge(scripted, {"demand_labels": ["answered", "ignored", "partial", "dropped"]})
    assert out.demand_labels == [None] * 4 and "ignored" in out.error


def test_a_wrong_number_of_labels_is_unscored(scripted):
    out, _ = _judge(scripted, {"demand_labels": ["answered", "conceded"]})
    assert out.demand_labels == [None] * 4
    assert out.error == ("invalid answer: it gave 2 labels for 4 demands; one label per demand is needed "
                         "(engagement judge, asked 3 times)")


def test_prose_without_labels_is_unscored_not_a_default(scripted):
    out, _ = _judge(scripted, "The author mostly engaged, I think.")
    assert out.demand_labels == [None] * 4 and out.error


def test_the_four_labels_are_the_papers():
    assert ENGAGEMENT_LABELS == ("answered", "conceded", "partial", "dropped")
    assert [label.value for label in EngagementLabel] == list(ENGAGEMENT_LABELS)

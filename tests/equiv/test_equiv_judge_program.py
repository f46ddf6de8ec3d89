"""The LLM equivalence judge, driven offline by a scripted LM."""

import dspy
import pytest

from tribunal.core.judgment import Vote
from tribunal.eval.equiv.rules.llm import LLMJudgeRule
from tribunal.eval.equiv.suite import load_suite
from tribunal.programs.equiv_judge import EquivalenceJudge, majority


@pytest.fixture(scope="module")
def pair():
    first = load_suite().pairs[2]  # h01 first-step-swapped
    return first.original, first.perturbed


def _order_sensitive(scripted, original, answers):
    """A judge whose verdict depends on which hypothesis is shown first (answers[True/False])."""
    def respond(system, user):
        shown_first = scripted.field(user, "hypothesis_a")
        return {"verdict": answers[shown_first == original.render()]}
    return respond


def test_agreeing_votes_stop_after_two_calls(scripted, pair):
    lm, engine = scripted.scripted_lm(lambda s, u: {"verdict": "different"})
    rule = LLMJudgeRule(lm, "full", threads=1)
    [judgment] = rule.judge_pairs([pair])
    assert judgment.same is False
    assert judgment.calls == 2 and judgment.calls_saved == 1
    assert len(engine.calls) == 2
    # the second call shows the pair reversed
    assert scripted.field(engine.calls[0][1], "hypothesis_a") == pair[0].render()
    assert scripted.field(engine.calls[1][1], "hypothesis_a") == pair[1].render()
    assert scripted.field(engine.calls[1][1], "hypothesis_b") == pair[0].render()
    assert judgment.order_flip is False


def test_order_flip_needs_third_call_and_majority_decides(scripted, pair):
    lm, engine = scripted.scripted_lm(_order_sensitive(scripted, pair[0], {True: "same", False: "different"}),
                                      temperature=0.7)
    [judgment] = LLMJudgeRule(lm, "none", threads=1).judge_pairs([pair])
    assert [v.order for v in judgment.votes] == ["ab", "ba", "ab"]
    assert [v.same for v in judgment.votes] == [True, False, True]
    assert judgment.same is True and judgment.calls == 3 and judgment.calls_saved == 0
    assert judgment.order_flip is True
    assert judgment.score == pytest.approx(2 / 3)
    assert len(engine.calls) == 3


def test_at_temperature_0_an_order_flip_counts_the_first_answer_twice_instead_of_asking_it_again(scripted, pair):
    lm, engine = scripted.scripted_lm(_order_sensitive(scripted, pair[0], {True: "same", False: "different"}))
    [judgment] = LLMJudgeRule(lm, "none", threads=1).judge_pairs([pair])
    assert [v.order for v in judgment.votes] == ["ab", "ba", "ab"]
    assert [v.same for v in judgment.votes] == [True, False, True]
    assert judgment.votes[2].detail == {"counted_twice": True} and not judgment.votes[0].detail
    assert judgment.same is True and judgment.calls == 2 and judgment.calls_saved == 1
    assert len(engine.calls) == 2  # no identical request sent twice


def test_component_rubric_keeps_typed_components(scripted, pair):
    answer = {"same_initiating_event": False, "same_route": True, "same_terminal_outcome": True, "verdict": "different"}
    lm, engine = scripted.scripted_lm(lambda s, u: answer)
    [judgment] = LLMJudgeRule(lm, "component", threads=1).judge_pairs([pair])
    assert judgment.same is False
    assert judgment.votes[0].detail == {"same_initiating_event": False, "same_route": True, "same_terminal_outcome": True}
    assert "initiating event" in engine.calls[0][0]  # the rubric is the instruction


def test_unparseable_answers_make_the_pair_unscored_not_different(scripted, pair):
    lm, engine = scripted.scripted_lm(lambda s, u: "I think they are kind of similar?")
    [judgment] = LLMJudgeRule(lm, "full", threads=1).judge_pairs([pair])
    assert judgment.same is None
    assert judgment.calls == len(engine.calls) == 6  # two votes, each asked three times (the third counts vote 1)
    assert all(v.same is None and v.error.startswith("refusal: ") for v in judgment.votes)
    assert all("\n" not in v.error for v in judgment.votes)
    assert judgment.reason


def test_invalid_literal_is_unscored(scripted, pair):
    lm, _ = scripted.scripted_lm(lambda s, u: {"verdict": "maybe"})
    [judgment] = LLMJudgeRule(lm, "none", threads=1).judge_pairs([pair])
    assert judgment.same is None


def test_threads_keep_pair_order(scripted):
    pairs = [(p.original, p.perturbed) for p in load_suite().pairs[:8]]
    wording = {p.perturbed.render() for p in load_suite().pairs[:8] if p.expected_same}

    def respond(system, user):
        texts = {scripted.field(user, "hypothesis_a"), scripted.field(user, "hypothesis_b")}
        return {"verdict": "same" if texts & wording else "different"}

    lm, _ = scripted.scripted_lm(respond)
    judgments = LLMJudgeRule(lm, "full", threads=3).judge_pairs(pairs)
    assert [j.same for j in judgments] == [b.render() in wording for _, b in pairs]


def test_repeat_uses_distinct_rollouts(scripted, pair):
    seen = []
    lm, _ = scripted.scripted_lm(lambda s, u: {"verdict": "same"})
    program = EquivalenceJudge("full")
    original_vote = program._vote
    program._vote = lambda order, a, b, rollout, context: seen.append(rollout) or original_vote(order, a, b, rollout)
    with dspy.context(lm=lm):
        program(hypothesis_a="a", hypothesis_b="b", repeat=0)
        program(hypothesis_a="a", hypothesis_b="b", repeat=1)
    assert seen == [None, None, 3, 4]


def test_full_rubric_clauses_reach_the_prompt(scripted, pair):
    lm, engine = scripted.scripted_lm(lambda s, u: {"verdict": "different"})
    LLMJudgeRule(lm, "full", threads=1).judge_pairs([pair])
    system = " ".join(engine.calls[0][0].split())  # the instruction, whitespace-normalised
    assert "the opposite direction or causal orientation" in system
    assert "one has X cause Y where the other has Y cause X" in system
    assert "the initiating event can differ even when downstream language overlaps" in system
    assert "proposed for the same instance to explain the same observed finding" in system
    assert "extra downstream biomarkers, or level of detail do NOT make them different" in system


@pytest.mark.parametrize("rubric", ["full", "component", "none"])
def test_without_context_the_neutral_framing_is_shown(scripted, pair, rubric):
    answer = {"same_initiating_event": True, "same_route": True, "same_terminal_outcome": True, "verdict": "same"}
    lm, engine = scripted.scripted_lm(lambda s, u: answer if rubric == "component" else {"verdict": "same"})
    [judgment] = LLMJudgeRule(lm, rubric, threads=1).judge_pairs([pair])  # the equiv rule's call, unchanged
    assert judgment.same is True
    user = engine.calls[0][1]
    assert scripted.field(user, "instance_context") == "Not given; both hypotheses address the same research question."
    assert scripted.field(user, "observed_finding") == "Not given; both hypotheses explain the same observed finding."


def test_instance_and_finding_reach_every_vote(scripted, pair):
    lm, engine = scripted.scripted_lm(lambda s, u: {"verdict": "different"})
    framed = EquivalenceJudge("full").framed("Why does neuropathy worsen on metformin?", "B12 low, MMA high.")
    with dspy.context(lm=lm):
        framed(hypothesis_a="a", hypothesis_b="b")
        EquivalenceJudge("full")(hypothesis_a="a", hypothesis_b="b", instance_context="Q2", observed_finding="F2")
    fields = [(scripted.field(u, "instance_context"), scripted.field(u, "observed_finding")) for _, u in engine.calls]
    assert fields == [("Why does neuropathy worsen on metformin?", "B12 low, MMA high.")] * 2 + [("Q2", "F2")] * 2


def test_majority_needs_two_scored_agreeing_votes():
    v = lambda same: Vote(order="ab", same=same)
    assert majority([v(True), v(True)]) is True
    assert majority([v(True), v(False)]) is None
    assert majority([v(True), v(None), v(False)]) is None
    assert majority([v(False), v(None), v(False)]) is False


def test_unknown_rubric_is_refused():
    with pytest.raises(ValueError, match="unknown rubric"):
        EquivalenceJudge("partial")

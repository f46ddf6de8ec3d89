"""An LM or answer failure leaves a vote, candidate or label set unscored; a programming bug propagates.

Each program's ``ask`` is replaced by one that raises: a ``TypeError`` (a bug) must reach the caller,
a provider's error must still come back as an unscored result with its reason.
"""

from __future__ import annotations

import dspy
import pytest
from dspy.utils.exceptions import AdapterParseError, LMServerError

from tribunal.errors import UserError
from tribunal.eval.equiv.suite import load_suite
from tribunal.programs.answers import UnusableAnswer
from tribunal.programs.answers.failures import is_answer_failure
from tribunal.programs.server_lost import LocalServerLost


def _raising(err: Exception):
    def ask(*args, **kwargs):
        raise err
    return ask


@pytest.fixture(scope="module")
def hypothesis():
    return load_suite().pairs[0].original


def _vote(monkeypatch, err):
    from tribunal.programs import equiv_judge

    monkeypatch.setattr(equiv_judge, "ask", _raising(err))
    return equiv_judge.EquivalenceJudge("full")._vote("ab", "first", "second", None)


def _perturb(monkeypatch, err, hypothesis):
    from tribunal.eval.equiv.checks import check_perturbation
    from tribunal.programs import equiv_perturb

    monkeypatch.setattr(equiv_perturb, "ask", _raising(err))
    return equiv_perturb.PerturbationGenerator(check=check_perturbation)(hypothesis=hypothesis, kind="first-step-swapped")


def _engage(monkeypatch, err):
    from tribunal.programs import hyp_engagement

    monkeypatch.setattr(hyp_engagement, "ask", _raising(err))
    return hyp_engagement.EngagementJudge()(demands=["d"], hypothesis_before="b", responses=[None],
                                            hypothesis_after="a")


def test_the_rule_tells_failures_from_bugs():
    for failure in (UnusableAnswer("x"), LMServerError("down"), AdapterParseError(adapter_name="JSONAdapter",
                    signature=dspy.Signature("a -> b"), lm_response="?")):
        assert is_answer_failure(failure)
    for bug in (TypeError("bug"), KeyError("k"), AttributeError("a"), UserError("u"), LocalServerLost("gone")):
        assert not is_answer_failure(bug)


def test_a_bug_in_the_equivalence_judge_propagates(monkeypatch):
    with pytest.raises(TypeError, match="a bug"):
        _vote(monkeypatch, TypeError("a bug"))


def test_an_lm_failure_in_the_equivalence_judge_is_an_unscored_vote(monkeypatch):
    vote, calls = _vote(monkeypatch, LMServerError("server down"))
    assert vote.same is None and "server down" in vote.error and calls == 1


def test_a_bug_in_the_perturber_propagates(monkeypatch, hypothesis):
    with pytest.raises(TypeError, match="a bug"):
        _perturb(monkeypatch, TypeError("a bug"), hypothesis)


def test_an_unusable_answer_in_the_perturber_is_a_rejection(monkeypatch, hypothesis):
    out = _perturb(monkeypatch, UnusableAnswer("no chain"), hypothesis)
    assert out.perturbed is None and "no chain" in out.problems[0]


def test_a_bug_in_the_engagement_judge_propagates(monkeypatch):
    with pytest.raises(TypeError, match="a bug"):
        _engage(monkeypatch, TypeError("a bug"))


def test_an_lm_failure_in_the_engagement_judge_is_unscored(monkeypatch):
    out = _engage(monkeypatch, LMServerError("server down"))
    assert out.demand_labels == [None] and "server down" in out.error


def test_tribunals_own_error_stops_the_run(monkeypatch):
    with pytest.raises(LocalServerLost):
        _vote(monkeypatch, LocalServerLost("gone"))

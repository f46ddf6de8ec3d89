"""A tuned candidate whose dev answers are mostly unusable is not picked, and the report shows the counts.

The scripted task LM (:class:`BreakingEngine`, on the toy equivalence task of :mod:`tests.optimizers.toy_task`)
answers the untuned program (no demos) always wrongly but in the required format, and the tuned one
(with demos) rightly on 8 of 16 dev items and with a refusal on the other 8: the tuned dev score is
higher (0 -> 0.5, as issue 42's 0.019 -> 0.236 with 13 of 30 unscored), yet the rule of
:mod:`tribunal.optimizers.dev_reliability` keeps the untuned program.
"""

from __future__ import annotations

import json
import zlib
from types import SimpleNamespace

import pytest
from dspy.lm15 import Message, Response, TextPart, Usage

from tests.support.injected_engine import use_engine
from tests.optimizers.toy_task import ToyEngine, _field, suite_oracle
from tribunal.eval.tracking.mlflow_run import TrackingSettings
from tribunal.optimizers.dev_reliability import MAX_UNSCORED_SHARE, SLACK, unreliable, unscored_rule
from tribunal.optimizers.objective_selection import select_by_objective
from tribunal.optimizers.optimize_job import OptimizeRequest, run_optimize

REFUSAL = "I'm sorry, I can't help with that."


class BreakingEngine(ToyEngine):
    """Untuned: the wrong verdict, well formed. Tuned (demos in the prompt): right, or a refusal on about half the items."""

    def complete(self, request):
        user = request.messages[-1].text or ""
        system = request.system if isinstance(request.system, str) else "".join(p.text for p in request.system or ())
        a, b = _field(user, "hypothesis_a"), _field(user, "hypothesis_b")
        if a is None or "verdict" not in system:
            return super().complete(request)
        truth = self.oracle(a, b)
        if len(request.messages) == 1:  # untuned: the opposite of the truth
            text = f"[[ ## verdict ## ]]\n{'different' if truth == 'same' else 'same'}\n\n[[ ## completed ## ]]"
        elif zlib.crc32(f"{a}|{b}".encode()) % 16 < 9:
            text = REFUSAL
        else:
            text = f"[[ ## verdict ## ]]\n{truth}\n\n[[ ## completed ## ]]"
        return Response(id=None, model="toy", message=Message.assistant([TextPart(text)]), finish_reason="stop",
                        usage=Usage(input_tokens=1, output_tokens=1, total_tokens=2))


def breaking_engine(role: str, model: str) -> BreakingEngine:
    """``lm_roles.test_engine_factory`` factory."""
    return BreakingEngine(oracle=suite_oracle())


def _dev(n: int, unscored: int) -> SimpleNamespace:
    return SimpleNamespace(n=n, unscored=unscored, scored=n - unscored, degraded=0, score=0.0, predictions=[],
                           counts=lambda: {"items": n, "scored": n - unscored, "unscored": unscored, "degraded": 0})


def test_the_rule_needs_both_a_large_share_and_more_than_the_untuned_program():
    assert unreliable(_dev(30, 13), _dev(30, 0)).startswith("13 of 30 dev items unscored (43%; untuned 0 of 30)")
    assert unreliable(_dev(30, 7), _dev(30, 0)) is None  # 23%: under MAX_UNSCORED_SHARE
    assert unreliable(_dev(30, 13), _dev(30, 12)) is None  # the untuned program fails as often: the data, not tuning
    assert unreliable(_dev(30, 13)) is not None and MAX_UNSCORED_SHARE == 0.25 and SLACK == 0.10


def test_the_rule_for_unscored_items_is_said_per_objective():
    assert unscored_rule("item") == "item: an unscored dev item scores 0"
    assert unscored_rule("seg-acc-eq=0.7,item=0.3").startswith("seg-acc-eq: every pair with an unscored")


def test_the_selection_skips_an_unreliable_finalist_with_a_higher_objective():
    good, broken = object(), object()
    devs = {id(good): _dev(20, 1), id(broken): _dev(20, 12)}
    compiled = SimpleNamespace(score=0.9, candidate_programs=[{"program": good, "score": 0.5}],
                               dump_state=lambda: {"broken": True})
    devs[id(compiled)] = devs.pop(id(broken))
    good_state = SimpleNamespace(dump_state=lambda: {"good": True})
    compiled.candidate_programs = [{"program": good_state, "score": 0.5}]
    devs[id(good_state)] = devs.pop(id(good))
    objective = SimpleNamespace(is_item=False, value=lambda preds, golds: preds)
    values = {id(compiled): 0.9, id(good_state): 0.4}

    def evaluate(program):
        dev = devs[id(program)]
        dev.predictions = values[id(program)]
        return dev

    selection = select_by_objective(compiled, objective, evaluate, [], untuned=_dev(20, 0))
    assert selection.program is good_state
    by_source = {f.source: f for f in selection.finalists}
    assert by_source["compiled"].unreliable.startswith("12 of 20") and by_source["compiled"].counts["unscored"] == 12
    assert by_source["candidate_programs"].unreliable is None and by_source["candidate_programs"].counts["scored"] == 19


@pytest.fixture
def breaking(monkeypatch):
    use_engine(monkeypatch, "tests.optimizers.test_dev_reliability:breaking_engine")


def test_a_tuned_program_mostly_unusable_on_dev_is_not_kept(tmp_path, breaking):
    request = OptimizeRequest(program="test-toy-equiv", optimizer="labeled", train="suite:0-8", dev="suite:8-24",
                              lm="toy/task", budget=2, threads=1, out=tmp_path / "t.json")
    result = run_optimize(request, TrackingSettings(enabled=False))
    assert result.untuned.score == 0.0 and result.untuned.unscored == 0
    rejected = result.rejected
    assert rejected is not None and rejected.n == 16 and rejected.unscored == 8 and rejected.score == pytest.approx(8 / 16)
    assert result.rejected_reason.startswith("8 of 16 dev items unscored (50%; untuned 0 of 16)")
    assert result.tuned.score == result.untuned.score and result.program.judge.demos == []  # the untuned program
    metadata = json.loads(result.out.read_text())["metadata"]
    report = metadata["dev_objective_report"]
    assert report["rejected"] == result.rejected_reason
    assert report["unscored_counted"] == "item: an unscored dev item scores 0"
    assert {k: report["untuned"][k] for k in ("items", "scored", "unscored", "degraded")} == \
        {"items": 16, "scored": 16, "unscored": 0, "degraded": 0}


def test_the_command_shows_the_counts_beside_the_scores(tmp_path, monkeypatch, breaking):
    from typer.testing import CliRunner

    from tribunal.cli import app

    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, [
        "optimize", "--program", "test-toy-equiv", "--optimizer", "labeled", "--budget", "2", "--train", "suite:0-8",
        "--dev", "suite:8-24", "--lm", "toy/task", "--threads", "1", "--no-track", "--out", str(tmp_path / "t.json")])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "tuned candidate not kept: 8 of 16 dev items unscored" in text
    assert "(8 scored, 8 unscored, 0 degraded of 16); the untuned program is exported" in text
    assert "dev untuned: objective item" in text and "16 scored, 0 unscored, 0 degraded of 16" in text
    assert "unscored dev items: item: an unscored dev item scores 0" in text

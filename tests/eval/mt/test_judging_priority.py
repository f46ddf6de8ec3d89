"""The judging loop serves its call slots critical path first, on a scripted M-MAD (paper preset, no network).

One call slot, an LM that answers each call in 50 ms (time enough for every call that can run to
queue for the slot): every grant goes to the waiting call with the most calls still ahead of it,
every item's chain starts (its four stage-1 agents) before any debate takes a slot, and the calls an
item fans out wait for the slot in that order, not in an executor's queue.
"""

from __future__ import annotations

import math
import time

import dspy
import pytest

import tribunal.eval.mt.judging as judging
from tests.support.mqm_fakes import ScriptedEngine, synthetic_judge
from tribunal.core.mt_item import JudgeItem
from tribunal.core.scheduling import _CHAIN_WEIGHT, CallSlots
from tribunal.programs.mqm.mmad import MMAD, MMADConfig
from tribunal.programs.mqm.roles import RoleLMs
from tribunal.programs.tribunal_lm import TribunalLM

STAGE1_AHEAD = 32  # CALLS_AHEAD["stage1"]: an item's first calls and its admission


def ahead_and_item(priority: float) -> tuple[int, int]:
    """(calls ahead, item number) of a slot priority (:func:`tribunal.core.scheduling.call_priority`)."""
    ahead = -math.floor(priority / _CHAIN_WEIGHT)
    return ahead, round(priority + ahead * _CHAIN_WEIGHT)


def recording_slots(grants: list):
    """A CallSlots that logs every grant to a waiter: (its priority, the priorities still waiting)."""

    class Recording(CallSlots):
        def _hand_over(self, waiter, slot) -> None:  # the lock is held: the waiters are as they were
            grants.append((waiter[0], [w[0] for w in self._waiters]))
            super()._hand_over(waiter, slot)

    return Recording


def debated(translation: str) -> bool:
    """Whether the synthetic judge's stage 1 finds a major error (so the paper preset debates it)."""
    return any(e["severity"] == "major" for name in ("AccuracyAssessment", "FluencyAssessment", "StyleAssessment",
                                                     "TerminologyAssessment")
               for e in synthetic_judge(name, {"translation": translation})["errors"])


class _Kept:
    def __init__(self) -> None:
        self.results: list = []

    def append(self, result) -> None:
        self.results.append(result)


@pytest.mark.parametrize("lm_class", [TribunalLM, dspy.LM], ids=["slot around the request", "slot around the call"])
def test_one_slot_goes_to_the_deepest_remaining_chain_and_every_chain_starts_first(monkeypatch, lm_class):
    translations = [t for t in (f"Satz {i} mit Wort{'x' * i} und Ende" for i in range(200)) if debated(t)][:4]
    assert len(translations) == 4

    def slow(name, inputs):
        time.sleep(0.05)
        return synthetic_judge(name, inputs)

    engine = ScriptedEngine(slow)

    def make_program():
        return MMAD(MMADConfig(preset="paper"), RoleLMs(lm_class("scripted/judge", engine=engine, cache=False)))

    grants: list = []
    monkeypatch.setattr(judging, "CallSlots", recording_slots(grants))
    kept = _Kept()
    items = [JudgeItem(f"S{k}:{k}", "The source sentence.", t) for k, t in enumerate(translations)]
    judging.judge_all(make_program, items, {"source_lang": "English", "target_lang": "German"}, kept, concurrency=1)

    assert [r.status for r in kept.results] == ["scored"] * 4
    assert any(r.debates for r in kept.results)
    for granted, waiting in grants:  # the slot goes to the call with the longest chain still ahead of it
        assert all(granted <= other for other in waiting), (ahead_and_item(granted), [ahead_and_item(w) for w in waiting])
    chain = [ahead_and_item(p) for p, _ in grants]
    aheads = [a for a, _ in chain]
    first = aheads.count(STAGE1_AHEAD)
    assert aheads[:first] == [STAGE1_AHEAD] * first, "every item's chain starts before any debate takes the slot"
    assert [i for _, i in chain[:first]] == sorted(i for _, i in chain[:first]), "items' first calls in item order"
    assert 0 in aheads and len({a for a in aheads if 0 < a < STAGE1_AHEAD}) >= 2, "debate rounds and judges ranked"
    # an item's three fanned-out stage-1 agents queue for the slot together (not one by one behind a thread)
    queued = [[ahead_and_item(p) for p in (granted, *waiting)] for granted, waiting in grants]
    assert all(any(q.count((STAGE1_AHEAD, k)) == 3 for q in queued) for k in range(4))

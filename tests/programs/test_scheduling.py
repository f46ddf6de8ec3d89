"""Call slots (bounded, oldest item first), fan-out of independent calls, and M-MAD under a scheduler."""

from __future__ import annotations

import contextvars
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import dspy
import pytest

from tests.support.mqm_fakes import ScriptedEngine
from tribunal.core.mt_judgment import MTJudgment
from tribunal.programs.mqm.mmad import MMAD, MMADConfig
from tribunal.programs.mqm.roles import RoleLMs
from tribunal.core.scheduling import CallSlots, Scheduler, call_slot, fan_out, scheduled
from tribunal.signatures.mqm.errors import DIMENSIONS

from tests.support.waiting import wait_for

from .test_mmad_scripted import ACC, ASSESSORS, FLU, SOURCE, TRANSLATION, script


def test_call_slots_hand_a_freed_slot_to_the_lowest_priority_waiter():
    slots = CallSlots(1)
    slots.acquire(priority=0)
    served: list[int] = []

    def waiter(priority: int) -> None:
        with slots.hold(priority):
            served.append(priority)

    threads = [threading.Thread(target=waiter, args=(p,)) for p in (5, 1, 3)]
    for queued, thread in enumerate(threads, 1):
        thread.start()
        wait_for(lambda: len(slots._waiters) == queued, f"{queued} waiters queued")  # in this order
    slots.release()
    for thread in threads:
        thread.join(timeout=5)
    assert served == [1, 3, 5] and slots.peak == 1


def test_call_slots_never_exceed_their_size():
    slots, lock, state = CallSlots(3), threading.Lock(), {"now": 0, "peak": 0}
    full = threading.Barrier(3, timeout=60)  # the first three holders meet: the slots do fill up

    def call(priority: int) -> None:
        with slots.hold(priority):
            with lock:
                state["now"] += 1
                state["peak"] = max(state["peak"], state["now"])
            if priority < 3:
                full.wait()
            with lock:
                state["now"] -= 1

    with ThreadPoolExecutor(12) as pool:
        list(pool.map(call, range(60)))
    assert state["peak"] == slots.peak == 3


def test_fan_out_without_an_executor_runs_in_order_on_this_thread():
    seen: list[tuple[int, str]] = []
    results = fan_out([lambda i=i: seen.append((i, threading.current_thread().name)) or i for i in range(3)])
    assert results == [0, 1, 2] and [i for i, _ in seen] == [0, 1, 2]
    assert {name for _, name in seen} == {threading.current_thread().name}


def test_fan_out_keeps_the_callers_context_and_result_order_and_raises_after_all_finished():
    tag = contextvars.ContextVar("tag", default="unset")
    finished: list[int] = []

    def call(i: int):
        time.sleep(0.02 * (3 - i))  # later calls finish first
        finished.append(i)
        if i == 1:
            raise RuntimeError("call 1 failed")
        return i, tag.get()

    with ThreadPoolExecutor(4) as pool, scheduled(Scheduler(None, pool)):
        tag.set("item-7")
        assert fan_out([lambda: call(0), lambda: call(2)]) == [(0, "item-7"), (2, "item-7")]
        with pytest.raises(RuntimeError, match="call 1"):
            fan_out([lambda: call(0), lambda: call(1), lambda: call(2)])
    assert sorted(finished[-3:]) == [0, 1, 2]


def test_call_slot_is_a_no_op_without_a_scheduler():
    with call_slot():
        with call_slot():  # no slot is taken, so nesting cannot block
            pass


class Overlap:
    """Wraps a responder; records the peak of answers at once. The first ``gather`` answers wait for
    each other (a barrier), so calls that may overlap do, on a machine of any speed."""

    def __init__(self, responder, gather: int = 1):
        self.responder = responder
        self.now = self.peak = 0
        self.lock = threading.Lock()
        self.gather, self.seen = threading.Barrier(gather, timeout=60), 0

    def __call__(self, name, inputs):
        with self.lock:
            self.now += 1
            self.peak = max(self.peak, self.now)
            self.seen += 1
            first = self.seen <= self.gather.parties
        if first:
            self.gather.wait()
        with self.lock:
            self.now -= 1
        return self.responder(name, inputs)


def run_scheduled(config: MMADConfig, responder, slots: int, gather: int = 1):
    overlap = Overlap(responder, gather)
    engine = ScriptedEngine(overlap)
    program = MMAD(config, RoleLMs(dspy.LM("scripted/judge", engine=engine, cache=False)))
    call_slots = CallSlots(slots)
    with ThreadPoolExecutor(8) as pool, scheduled(Scheduler(call_slots, pool)):
        out = program(source=SOURCE, translation=TRANSLATION, source_lang="English", target_lang="German")
    return out, engine.names(), overlap.peak, call_slots.peak


def test_mmad_under_a_scheduler_runs_stage1_and_debates_concurrently_within_the_slots():
    responder = script({"AccuracyAssessment": [ACC], "FluencyAssessment": [FLU]}, opposer_agrees=(True, True))
    out, calls, peak, slot_peak = run_scheduled(MMADConfig(preset="lean"), responder, slots=4, gather=4)
    assert Counter(calls[:4]) == Counter(ASSESSORS)  # the same stage-1 calls, in any order
    assert calls[4:] == ["DebateTurn", "DebateTurn", "FinalJudgment"]
    assert peak == slot_peak == 4, "the four dimension agents overlap, no more than the slots allow"
    stage1 = [t.role for t in out.transcript if t.stage == "stage1"]
    stage2 = [t.dimension for t in out.transcript if t.stage == "stage2"]
    assert stage1 == list(DIMENSIONS) and stage2 == ["accuracy", "fluency"]
    assert out.score == pytest.approx(-5.1)


def test_one_call_slot_serialises_the_fanned_out_calls():
    out, calls, peak, slot_peak = run_scheduled(MMADConfig(preset="lean"), script({}), slots=1)
    assert Counter(calls) == Counter(ASSESSORS) and peak == slot_peak == 1 and out.score == 0


def test_a_fanned_out_call_does_not_fan_out_again():
    def inner(i: int) -> str:
        return threading.current_thread().name

    def outer() -> list[str]:
        return fan_out([lambda: inner(0), lambda: inner(1)])

    with ThreadPoolExecutor(1, thread_name_prefix="only") as pool, scheduled(Scheduler(None, pool)):
        here, there = fan_out([outer, outer])  # with one worker, a nested submit would wait forever
    assert len(set(here)) == 2 and set(there) == {"only_0"}


def test_paper_debaters_speak_at_once_under_a_scheduler():
    from tests.support.mqm_fakes import synthetic_judge

    state, lock = {"now": 0, "peak": 0, "seen": 0}, threading.Lock()
    first_round = threading.Barrier(2, timeout=60)  # A1 and A2 of the first round must meet: they overlap

    def responder(name, inputs):
        if not name.endswith("Reexamination"):
            return synthetic_judge(name, inputs)
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
            state["seen"] += 1
            first = state["seen"] <= 2
        if first:
            first_round.wait()
        with lock:
            state["now"] -= 1
        return synthetic_judge(name, inputs)

    translation = next(t for t in (f"Satz {i} mit Wort{'x' * i}" for i in range(60))
                       if any(t.split()[-1] == e["span"] and e["severity"] == "major" for e in
                              synthetic_judge("AccuracyAssessment", {"translation": t})["errors"]))
    engine = ScriptedEngine(responder)
    program = MMAD(MMADConfig(), RoleLMs(dspy.LM("scripted/judge", engine=engine, cache=False)))
    with ThreadPoolExecutor(8) as pool, scheduled(Scheduler(CallSlots(4), pool)):
        out = program(source=SOURCE, translation=translation, source_lang="English", target_lang="German")
    assert "accuracy" in MTJudgment.of(out).debates and state["peak"] >= 2  # A1 and A2 of a round overlap
    turns = next(t for t in out.transcript if t.dimension == "accuracy").turns
    assert [t["role"] for t in turns[:4]] == ["defender", "opposer", "defender", "opposer"]  # order kept


def test_admission_waits_behind_the_first_calls_of_started_items_and_ahead_of_their_later_stages():
    from tribunal.core.scheduling import CALLS_AHEAD, Ticket, admission_priority, call_priority

    slots = CallSlots(1)
    slots.acquire(priority=0)
    order: list[str] = []

    def admit() -> None:
        slots.acquire(admission_priority(9))
        order.append("admitted")
        slots.release()  # the item's ticket, used and given back

    def call(name: str, stage: str) -> None:
        with slots.hold(call_priority(5, CALLS_AHEAD[stage])):
            order.append(name)

    threads = [threading.Thread(target=admit), threading.Thread(target=call, args=("judge", "stage3")),
               threading.Thread(target=call, args=("stage1", "stage1"))]
    for queued, thread in enumerate(threads, 1):
        thread.start()
        wait_for(lambda: len(slots._waiters) == queued, f"{queued} waiters queued")  # the admission first
    slots.release()
    for thread in threads:
        thread.join(timeout=5)
    # an older item's first call, then the new item (its whole chain ahead), then the older item's judge
    assert order == ["stage1", "admitted", "judge"]
    slots.acquire(admission_priority(10))
    ticket = Ticket(slots)  # the admitted slot, handed to the new item
    with scheduled(Scheduler(slots, None), priority=9, ticket=ticket):
        with call_slot():  # uses the ticket: no second slot is taken (size 1, so it would block)
            assert slots.peak == 1
    assert slots._busy == 0  # the call gave the ticket's slot back


def test_an_unused_ticket_is_given_back_when_the_item_ends():
    from tribunal.core.scheduling import Ticket

    slots = CallSlots(1)
    slots.acquire()
    with scheduled(Scheduler(slots, None), ticket=Ticket(slots)):
        pass  # an item that made no call (or failed before its first)
    assert slots._busy == 0


def test_waiting_calls_are_served_deepest_remaining_chain_first_then_oldest_item():
    slots = CallSlots(1)
    slots.acquire(priority=0)
    served: list[tuple[int, str]] = []
    scheduler = Scheduler(slots, None)

    def call(item: int, stage: str) -> None:
        with scheduled(scheduler, priority=item), call_slot(stage):
            served.append((item, stage))

    # queued judge-first, newest-first: the opposite of the order they must be served in
    queued = [(0, "stage3"), (1, "stage3"), (2, "stage2"), (0, "stage2"), (3, "stage1"), (2, "stage1")]
    threads = [threading.Thread(target=call, args=c) for c in queued]
    for count, thread in enumerate(threads, 1):
        thread.start()
        wait_for(lambda: len(slots._waiters) == count, f"{count} waiters queued")
    slots.release()
    for thread in threads:
        thread.join(timeout=5)
    assert served == [(2, "stage1"), (3, "stage1"), (0, "stage2"), (2, "stage2"), (0, "stage3"), (1, "stage3")]


def test_chain_priority_orders_by_calls_ahead_then_by_item():
    from tribunal.core.scheduling import CALLS_AHEAD, call_priority

    assert call_priority(10**6, CALLS_AHEAD["stage1"]) < call_priority(0, CALLS_AHEAD["stage2"])
    assert call_priority(1, CALLS_AHEAD["stage2"]) < call_priority(2, CALLS_AHEAD["stage2"])
    assert call_priority(5, CALLS_AHEAD.get("unknown", 0)) == 5


def test_a_debate_round_with_more_rounds_after_it_goes_first():
    from tribunal.core.scheduling import calls_ahead

    slots = CallSlots(1)
    slots.acquire(priority=0)
    served: list[tuple[int, int]] = []
    scheduler = Scheduler(slots, None)

    def call(item: int, ahead: int) -> None:
        with scheduled(scheduler, priority=item), calls_ahead(ahead), call_slot("stage2"):
            served.append((item, ahead))

    threads = [threading.Thread(target=call, args=c) for c in [(0, 1), (1, 3), (2, 5)]]  # last rounds first
    for count, thread in enumerate(threads, 1):
        thread.start()
        wait_for(lambda: len(slots._waiters) == count, f"{count} waiters queued")
    slots.release()
    for thread in threads:
        thread.join(timeout=5)
    assert served == [(2, 5), (1, 3), (0, 1)]


def test_a_fanned_out_call_fans_out_on_the_nested_executor_and_a_call_there_no_further():
    def name() -> str:
        return threading.current_thread().name

    def deepest() -> list[str]:
        return fan_out([name, name])  # a third level: in order, on this thread

    def outer() -> list:
        return fan_out([name, deepest])

    with ThreadPoolExecutor(1, thread_name_prefix="outer") as pool, \
            ThreadPoolExecutor(1, thread_name_prefix="nested") as nested, \
            scheduled(Scheduler(None, pool, nested=nested)):
        here, there = fan_out([outer, outer])  # one thread each: a level waits only on the level below
    main = threading.current_thread().name
    assert here == [main, ["outer_0", "nested_0"]]  # the second level on the nested executor
    assert there == ["outer_0", ["nested_0", "nested_0"]]  # a third level in order, on its thread


def test_tribunal_lm_holds_its_call_slot_around_the_request_only_a_plain_lm_around_the_whole_call():
    from tests.support.mqm_fakes import synthetic_judge
    from tribunal.core.call_slots import current_slot
    from tribunal.programs.mqm.roles import invoke
    from tribunal.programs.tribunal_lm import TribunalLM
    from tribunal.signatures.mqm.consensus import ConsensusCheck

    for lm_class, held_while_parsing in ((TribunalLM, False), (dspy.LM, True)):
        seen: dict[str, list] = {"request": [], "check": []}

        def responder(name, inputs):
            seen["request"].append(current_slot())
            return synthetic_judge(name, inputs)

        lm = lm_class("scripted/judge", engine=ScriptedEngine(responder), cache=False)
        slots = CallSlots(1)
        with scheduled(Scheduler(slots, None)):
            out = invoke(RoleLMs(lm), "consensus", "stage2", dspy.Predict(ConsensusCheck),
                         check=lambda answer: seen["check"].append(current_slot()),
                         first_annotations=[], second_annotations=[])
        assert out.consensus is True and slots._busy == 0 and slots.peak == 1
        assert len(seen["request"]) == 1 and seen["request"][0] is not None  # the request went out in the slot
        assert (seen["check"][0] is not None) == held_while_parsing, lm_class  # the answer read in it, or not

"""Pacing keeps the call slots' order: the request granted its slot first is sent first
(tribunal.core.pacing_gate waits for the turn while the slot is held)."""

from __future__ import annotations

import asyncio
import threading
import time

from tribunal.core.call_slots import AsyncCallSlots, CallSlots
from tribunal.core.rate_pacer import RatePacer

PRIORITIES = [5, 3, 7, 1, 6, 2, 8, 4]


def drained(rpm: float) -> RatePacer:
    """A pacer whose burst is spent: every request from now on waits its turn, ``60 / rpm`` apart."""
    pacer = RatePacer(rpm=rpm)
    for _ in range(int(rpm / 60) + 1):
        pacer.reserve(0)
    return pacer


def test_on_the_event_loop_requests_go_in_slot_order_while_the_rate_holds_them():
    pacer = drained(600)

    async def scenario() -> list[int]:
        slots = AsyncCallSlots(3)
        held = [await slots.acquire() for _ in range(3)]
        sent: list[int] = []

        async def call(priority: int) -> None:
            slot = await slots.acquire(priority)
            try:
                await pacer.await_turn(0)
                sent.append(priority)
            finally:
                slots.release(slot)

        tasks = [asyncio.create_task(call(p)) for p in PRIORITIES]
        await asyncio.sleep(0)
        assert len(slots._waiters) == len(PRIORITIES)
        for slot in held:
            slots.release(slot)
        await asyncio.gather(*tasks)
        return sent

    started = time.monotonic()
    assert asyncio.run(scenario()) == sorted(PRIORITIES)
    assert time.monotonic() - started >= 0.7  # eight turns 0.1 s apart: the rate, not the slots, held them


def test_on_threads_a_slot_held_while_waiting_keeps_the_priority_order():
    pacer, slots, sent, lock = drained(600), CallSlots(1), [], threading.Lock()
    held = slots.acquire()

    def call(priority: int) -> None:
        with slots.hold(priority):
            pacer.wait(0)
            with lock:
                sent.append(priority)

    threads = [threading.Thread(target=call, args=(p,)) for p in PRIORITIES]
    for thread in threads:
        thread.start()
    while len(slots._waiters) < len(PRIORITIES):
        time.sleep(0.01)
    slots.release(held)
    for thread in threads:
        thread.join(timeout=10)
    assert sent == sorted(PRIORITIES)

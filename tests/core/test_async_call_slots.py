"""The async call slots serve waiters as the threaded ones do: lowest priority first, ties first come,
numbers handed on with the slot; a cancelled waiter leaves the queue; ``afan_out`` keeps order."""

from __future__ import annotations

import asyncio

import pytest

from tribunal.core.async_scheduling import acall_slot, afan_out
from tribunal.core.call_slots import AsyncCallSlots, current_slot
from tribunal.core.scheduling import Scheduler, Ticket, calls_ahead, scheduled


def test_waiters_get_the_slot_by_priority_then_arrival_with_its_number():
    async def scenario():
        slots = AsyncCallSlots(1)
        held = await slots.acquire()
        served: list[tuple[str, int | None]] = []

        async def wait(name: str, priority: float):
            served.append((name, await slots.acquire(priority)))
            slots.release(served[-1][1])

        tasks = [asyncio.create_task(wait(name, priority)) for name, priority in
                 [("late", 5), ("first", 1), ("tie-a", 3), ("tie-b", 3)]]
        await asyncio.sleep(0)
        assert len(slots._waiters) == 4
        slots.release(held)
        await asyncio.gather(*tasks)
        return held, served

    held, served = asyncio.run(scenario())
    assert [name for name, _ in served] == ["first", "tie-a", "tie-b", "late"]
    assert {number for _, number in served} == {held}  # one slot, one number, handed on


def test_a_cancelled_waiter_leaves_the_queue_and_the_slot_goes_on():
    async def scenario():
        slots = AsyncCallSlots(1)
        held = await slots.acquire()
        gone = asyncio.create_task(slots.acquire(1))
        kept = asyncio.create_task(slots.acquire(2))
        await asyncio.sleep(0)
        gone.cancel()
        await asyncio.sleep(0)
        assert len(slots._waiters) == 1
        slots.release(held)
        return await kept, slots._busy

    number, busy = asyncio.run(scenario())
    assert number is not None and busy == 1


def test_a_call_slot_uses_the_items_ticket_first_then_waits_in_critical_path_order():
    async def scenario():
        slots = AsyncCallSlots(1)
        ticket_slot = await slots.acquire()
        order: list[str] = []

        async def call(name: str, item: int, ahead: int):
            with scheduled(Scheduler(slots), priority=item), calls_ahead(ahead):
                async with acall_slot("stage2"):
                    order.append(name)
                    await asyncio.sleep(0)

        with scheduled(Scheduler(slots), priority=0, ticket=Ticket(slots, ticket_slot)):
            async with acall_slot("stage1"):
                assert current_slot() == ticket_slot  # the ticket's slot, no wait
                waiting = [asyncio.create_task(call("shallow", 0, 0)), asyncio.create_task(call("deep", 9, 5))]
                await asyncio.sleep(0)
        await asyncio.gather(*waiting)
        return order

    assert asyncio.run(scenario()) == ["deep", "shallow"]  # the longer chain ahead first, whatever the item


def test_afan_out_returns_in_order_and_raises_the_first_failure_after_all_ended():
    ended: list[str] = []

    async def ok(name: str, delay: float):
        await asyncio.sleep(delay)
        ended.append(name)
        return name

    async def bad(name: str):
        await asyncio.sleep(0)
        ended.append(name)
        raise ValueError(name)

    assert asyncio.run(afan_out([lambda: ok("a", 0.02), lambda: ok("b", 0)])) == ["a", "b"]
    ended.clear()
    with pytest.raises(ValueError, match="first"):
        asyncio.run(afan_out([lambda: bad("first"), lambda: ok("slow", 0.02), lambda: bad("second")]))
    assert set(ended) == {"first", "slow", "second"}  # none outlives the fan-out

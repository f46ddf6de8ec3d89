"""Call slots have numbers: distinct among the calls holding them, handed on with the slot, and
readable inside a held slot (a transport keys its connection by them)."""

from __future__ import annotations

import threading

from tests.support.waiting import wait_for
from tribunal.core.call_slots import CallSlots, current_slot


def test_holders_hold_distinct_numbers_and_a_freed_number_goes_to_the_next_waiter():
    slots = CallSlots(2)
    first, second = slots.acquire(), slots.acquire()
    assert first != second and first is not None and second is not None
    got: list[int | None] = []
    waiter = threading.Thread(target=lambda: got.append(slots.acquire(priority=1)))
    waiter.start()
    wait_for(lambda: len(slots._waiters) == 1, "the third caller waits")
    slots.release(second)
    waiter.join(timeout=5)
    assert got == [second]  # the slot changed hands with its number
    slots.release(first)
    assert slots.acquire() == first  # a number given back is taken again
    assert CallSlots(1).acquire() not in (first, second)  # another run's slots: other numbers


def test_current_slot_is_the_held_number_inside_hold_and_none_outside():
    slots = CallSlots(1)
    assert current_slot() is None
    with slots.hold() as number:
        assert current_slot() == number is not None
    assert current_slot() is None
    with slots.hold() as again:
        assert again == number  # one slot: the same number every time

"""The rate pacer's token buckets on a clock the test moves (tribunal.core.rate_pacer)."""

from __future__ import annotations

import asyncio
import time

import pytest

from tribunal.core.rate_limit_headers import RateLimitReport
from tribunal.core.rate_pacer import RatePacer


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def turns(pacer: RatePacer, count: int, tokens: float = 0.0) -> list[float]:
    """When each of ``count`` requests asked at once may go, relative to now."""
    start = pacer._clock()
    return [round(pacer.reserve(tokens).at - start, 6) for _ in range(count)]


def test_requests_go_smoothly_a_second_of_the_rate_at_once_then_one_every_60_over_rpm():
    pacer = RatePacer(rpm=600, clock=Clock())  # 10 a second
    at = turns(pacer, 30)
    assert at[:10] == [0.0] * 10  # the bucket holds one second's worth, not a minute's (600)
    assert at[10:] == pytest.approx([0.1 * k for k in range(1, 21)])


def test_a_bucket_refills_at_the_rate_and_no_further_than_its_capacity():
    clock = Clock()
    pacer = RatePacer(rpm=60, clock=clock)  # one a second, holds one
    assert turns(pacer, 2) == [0.0, 1.0]
    clock.now += 60  # a minute idle refills one second's worth, not sixty
    assert turns(pacer, 2) == [0.0, 1.0]


def test_tokens_are_paced_by_the_estimate_and_corrected_by_the_usage_reported():
    clock = Clock()
    pacer = RatePacer(tpm=6000, clock=clock)  # 100 tokens a second, holds 100
    first = pacer.reserve(100)
    assert first.at == clock.now
    assert pacer.reserve(100).at == pytest.approx(clock.now + 1.0)  # the second waits for 100 more tokens
    pacer.settle(first, used_tokens=400)  # the answer used 300 tokens more than estimated: debt
    assert pacer.reserve(0).at == pytest.approx(clock.now + 4.0)
    pacer.settle(pacer.reserve(0), used_tokens=None)  # no usage reported: nothing corrected


def test_a_large_prompt_makes_debt_that_the_next_request_waits_out():
    pacer = RatePacer(tpm=600, clock=Clock())  # 10 a second, holds 10
    assert turns(pacer, 2, tokens=50) == [pytest.approx(4.0), pytest.approx(9.0)]


def test_without_limits_nothing_waits():
    pacer = RatePacer(clock=Clock())
    assert not pacer.limited and turns(pacer, 100) == [0.0] * 100


def test_a_header_limit_below_the_flag_lowers_the_rate_and_never_raises_it():
    clock = Clock()
    pacer = RatePacer(rpm=600, clock=clock)
    pacer.observe(RateLimitReport(limit_requests=60))
    assert pacer.rate("requests") == 60
    pacer.observe(RateLimitReport(limit_requests=6000))
    assert pacer.rate("requests") == 600
    fresh = RatePacer(clock=clock)  # no flag: the header's limit becomes the rate
    fresh.observe(RateLimitReport(limit_tokens=30000))
    assert fresh.rate("tokens") == 30000 and fresh.rate("requests") is None


def test_no_request_remaining_pauses_until_the_reset_then_restarts_empty():
    clock = Clock()
    pacer = RatePacer(rpm=600, clock=clock)
    pacer.observe(RateLimitReport(remaining_requests=0, reset_requests=1.0))
    assert pacer.limited and pacer.pauses == 1
    assert turns(pacer, 2) == [pytest.approx(1.1), pytest.approx(1.2)]  # no burst at the reset
    unlimited = RatePacer(clock=clock)
    unlimited.observe(RateLimitReport(remaining_requests=0, reset_requests=2.0))
    assert turns(unlimited, 3) == [2.0, 2.0, 2.0]  # no rate of its own: all go at the reset


def test_a_429s_retry_after_pauses_and_a_shorter_one_does_not_shorten_it():
    clock = Clock()
    pacer = RatePacer(clock=clock)
    pacer.observe(RateLimitReport(retry_after=3.0))
    pacer.observe(RateLimitReport(retry_after=1.0))
    assert turns(pacer, 1) == [3.0] and pacer.pauses == 1


def test_a_request_waiting_when_a_pause_comes_takes_a_turn_after_it():
    pacer = RatePacer(rpm=120)  # the real clock: two a second, holds two
    pacer.reserve(0), pacer.reserve(0)  # the bucket is empty: the next turn is 0.5 s away
    started = time.monotonic()
    pacer.observe(RateLimitReport(remaining_requests=0, reset_requests=0.8))
    pacer.wait(0)
    assert time.monotonic() - started >= 0.8


def test_waiting_for_a_turn_on_the_event_loop_does_not_block_it():
    pacer = RatePacer(rpm=600)  # 10 a second, the first 10 at once

    async def main() -> tuple[float, int]:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.01)

        task = asyncio.ensure_future(ticker())
        started = time.monotonic()
        await asyncio.gather(*(pacer.await_turn(0) for _ in range(15)))
        elapsed = time.monotonic() - started
        task.cancel()
        return elapsed, ticks

    elapsed, ticks = asyncio.run(main())
    assert 0.45 <= elapsed < 1.5  # the last of 15 goes 0.5 s after the first
    assert ticks >= 20  # the loop ran other tasks meanwhile

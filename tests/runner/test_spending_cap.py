"""The spending cap's ledger: reservations at the table's prices, refusals, settling at the provider usage."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest

from tribunal.errors import SpendingCapReached, UserError
from tribunal.programs.pricing import token_rates
from tribunal.runner.spending_cap import SpendingCap, prompt_token_estimate

MODEL = "openai/gpt-4o-mini"


def _lm(max_tokens=100):
    return SimpleNamespace(model=MODEL, kwargs={"max_tokens": max_tokens})


def _call(text="x" * 400):
    return SimpleNamespace(messages=[{"role": "user", "content": text}], kwargs={}, legacy={}, cache=False)


def test_a_request_is_refused_when_its_reservation_would_pass_the_cap():
    rates = token_rates(MODEL)
    one = prompt_token_estimate("x" * 400) * rates[0] + 100 * rates[1]
    cap = SpendingCap(max_cost=2.5 * one)
    first, second = cap.admit(_lm(), _call()), cap.admit(_lm(), _call())
    waiting = threading.Thread(target=lambda: third.append(cap.admit(_lm(), _call())))
    third: list = []
    waiting.start()  # two in flight reserve 2 x; a third would pass 2.5 x: it waits for them
    waiting.join(0.2)
    assert waiting.is_alive() and cap.admitting()
    cap.settle(first, SimpleNamespace(usage={"prompt_tokens": 100, "completion_tokens": 10}, cache_hit=False))
    waiting.join(5)
    assert third and third[0] is not None  # the first one's usage left room
    cap.settle(second, None)  # failed: nothing spent
    cap.settle(third[0], SimpleNamespace(usage={"prompt_tokens": 100, "completion_tokens": 10}, cache_hit=False))
    assert cap.spent == pytest.approx(2 * (100 * rates[0] + 10 * rates[1])) and cap.sent == 3 and cap.reserved == 0
    big = SpendingCap(max_cost=0.5 * one)
    with pytest.raises(SpendingCapReached):
        big.admit(_lm(), _call())  # nothing in flight to wait for
    assert big.stopped_by == f"--max-cost {0.5 * one:g}" and not big.admitting()


def test_a_call_cap_counts_calls_sent_and_in_flight():
    cap = SpendingCap(max_calls=2)
    held = [cap.admit(_lm(), _call()) for _ in range(2)]
    assert not cap.admitting()
    with pytest.raises(SpendingCapReached):
        cap.admit(_lm(), _call())
    for reservation in held:
        cap.settle(reservation, SimpleNamespace(usage={}, cache_hit=True))
    assert cap.sent == 2 and cap.left() == (None, 0)


def test_an_unpriced_model_cannot_take_a_cost_cap():
    with pytest.raises(UserError, match="no price"):
        SpendingCap(max_cost=1.0).check_models(["openai/some-local-model"])
    SpendingCap(max_calls=3).check_models(["openai/some-local-model"])  # a call cap needs no price


def test_prompt_tokens_are_estimated_generously_for_non_ascii_text():
    assert prompt_token_estimate("a" * 400) == 108 and prompt_token_estimate("汉" * 100) == 108

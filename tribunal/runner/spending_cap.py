"""Spending caps (``--max-cost USD``, ``--max-calls N``): no request is sent that could pass them.

A :class:`SpendingCap` is the gate of every LM of a capped run (:mod:`tribunal.core.spending_gate`).
Before a request goes out (its call slot held) it reserves what the request may cost at most: its
prompt tokens (estimated from the prompt's text: four ASCII characters or one other character a
token, :mod:`tribunal.core.request_estimate`) at the input price plus its ``max_tokens`` at the completion price (LiteLLM's price table,
:mod:`tribunal.programs.pricing`). The request is refused with
:class:`~tribunal.errors.SpendingCapReached` when what was spent plus what the requests in flight
have reserved plus its own reservation would pass ``--max-cost`` (while other requests are in
flight it first waits for them to settle, as their usage is usually far below their reservation),
or when the calls sent and in flight already make ``--max-calls``; from then on the run admits no new item
(:meth:`SpendingCap.admitting`). The requests in flight finish and are paid for at their provider
usage. A request DSPy's response cache answers is free: it passes without a reservation, so a
resumed run replays the finished calls of the items a cap cut short at no cost.

A cap counts what *this command* spends: a resumed run may spend up to its own ``--max-cost`` again.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Iterable

from tribunal.errors import SpendingCapReached, UserError
from tribunal.core.request_estimate import answered_by_cache, prompt_text, prompt_token_estimate
from tribunal.core.spending_gate import set_gate
from tribunal.programs.pricing import model_prices, token_rates

DEFAULT_COMPLETION_LIMIT = 4096
"""The completion tokens reserved for a request without ``max_tokens`` whose model's table entry gives no
``max_output_tokens`` either."""


@dataclass
class Reservation:
    model: str
    usd: float


def _completion_limit(lm: Any, call: Any) -> int:
    for source in (getattr(call, "kwargs", None) or {}, getattr(call, "legacy", None) or {}, lm.kwargs):
        for key in ("max_tokens", "max_completion_tokens"):
            if source.get(key):
                return int(source[key])
    entry = model_prices(lm.model) or {}
    return int(entry.get("max_output_tokens") or entry.get("max_tokens") or DEFAULT_COMPLETION_LIMIT)


class SpendingCap:
    """A run's caps and its ledger: spent, reserved by the requests in flight, calls sent."""

    def __init__(self, max_cost: float | None = None, max_calls: int | None = None, batch: bool = False,
                 resume: str | None = None):
        self.max_cost, self.max_calls, self.batch = max_cost, max_calls, batch
        self.resume = resume  # the command that resumes the run, for its summary
        self._lock = threading.Condition()
        self.spent = 0.0
        self.reserved = 0.0
        self.sent = 0
        self.in_flight = 0
        self.largest = 0.0  # the largest reservation of a call so far
        self.stopped_by: str | None = None

    def __deepcopy__(self, memo: dict) -> "SpendingCap":  # an LM copied by DSPy keeps the run's one ledger
        return self

    @property
    def active(self) -> bool:
        return self.max_cost is not None or self.max_calls is not None

    def check_models(self, models: Iterable[str]) -> None:
        """Refuse ``--max-cost`` for a model without a price (its spend could not be known)."""
        if self.max_cost is None:
            return
        unpriced = sorted({m for m in models if m and token_rates(m) is None})
        if unpriced:
            raise UserError(f"--max-cost: {', '.join(unpriced)} has no price in LiteLLM's table, so its spend is "
                            "unknown; cap it with --max-calls N instead")

    def attach(self, lms: Iterable[Any]) -> None:
        """Make this cap the gate of every LM in ``lms`` (None entries skipped)."""
        for lm in lms:
            if lm is not None:
                set_gate(lm, self)

    def label(self) -> str:
        parts = ([f"--max-cost {self.max_cost:g}"] if self.max_cost is not None else []) + \
                ([f"--max-calls {self.max_calls}"] if self.max_calls is not None else [])
        return " ".join(parts)

    def admitting(self, calls: int = 1) -> bool:
        """Whether the run may start another item: no cap stopped it and neither is reached yet.

        ``calls``: the most calls the item may make (an equivalence pair's three votes): it is admitted only
        when they all fit (under ``--max-cost`` each priced as the largest reservation seen so far), so an
        item is not cut short halfway, its finished calls lost to a run without the response cache."""
        with self._lock:
            if self.stopped_by is None:
                if self.max_calls is not None and self.sent + self.in_flight + calls > self.max_calls:
                    self.stopped_by = f"--max-calls {self.max_calls}"
                elif self.max_cost is not None and \
                        self.spent + self.reserved + (calls - 1) * self.largest >= self.max_cost:
                    self.stopped_by = f"--max-cost {self.max_cost:g}"
            return self.stopped_by is None

    def admit(self, lm: Any, call: Any) -> Reservation | None:
        """A reservation for one request (None: answered by the cache, free); raises over a cap."""
        if answered_by_cache(lm, call):
            return None
        usd = 0.0
        if self.max_cost is not None:
            rates = token_rates(lm.model, self.batch) or (0.0, 0.0)
            usd = prompt_token_estimate(prompt_text(call)) * rates[0] + _completion_limit(lm, call) * rates[1]
        with self._lock:
            while True:
                if self.max_calls is not None and self.sent + self.in_flight >= self.max_calls:
                    self.stopped_by = self.stopped_by or f"--max-calls {self.max_calls}"
                elif self.max_cost is not None and self.spent + self.reserved + usd > self.max_cost:
                    if self.in_flight and self.stopped_by is None:  # their usage may free room: wait for them
                        self._lock.wait()
                        continue
                    self.stopped_by = self.stopped_by or f"--max-cost {self.max_cost:g}"
                else:
                    self.reserved += usd
                    self.largest = max(self.largest, usd)
                    self.in_flight += 1
                    return Reservation(lm.model, usd)
                break
            stopped = self.stopped_by
        raise SpendingCapReached(f"{stopped}: this call could pass the cap; the run admits no new item")

    def settle(self, reservation: Reservation | None, result: Any) -> None:
        """A request ended: its reservation is freed and its provider usage (if any) is spent."""
        if reservation is None:
            return
        usage = {} if result is None or getattr(result, "cache_hit", False) else (getattr(result, "usage", None) or {})
        rates = token_rates(reservation.model, self.batch) or (0.0, 0.0)
        cost = int(usage.get("prompt_tokens") or 0) * rates[0] + int(usage.get("completion_tokens") or 0) * rates[1]
        with self._lock:
            self.reserved = max(0.0, self.reserved - reservation.usd)
            self.in_flight -= 1
            self.sent += 1
            self.spent += cost
            self._lock.notify_all()

    def left(self) -> tuple[float | None, int | None]:
        """Dollars and calls left under the caps (None for a cap not set)."""
        with self._lock:
            cost = None if self.max_cost is None else max(0.0, self.max_cost - self.spent)
            calls = None if self.max_calls is None else max(0, self.max_calls - self.sent)
        return cost, calls

"""Pacing LM requests to a provider's rate limit: a token bucket for requests, one for tokens.

``--rpm N`` / ``--tpm N`` (``lm.rpm`` / ``lm.tpm``) and the limits the provider's headers report
(:mod:`tribunal.core.rate_limit_headers`) bound how fast requests go out. A request takes one
request and its prompt's estimated tokens (:func:`tribunal.core.request_estimate.prompt_token_estimate`)
from the buckets before it is sent; once the answer reports its usage, the difference is charged
(or given back). The buckets are smooth: they hold :data:`BURST_SECONDS` of the rate, so a run
starts with about a second's worth of requests at once, not a minute's, and then one request
every ``60 / rpm`` seconds.

A request *reserves* its turn (under a lock, so turns are handed out in the order requests ask:
a request that got its call slot first is paced first) and then waits until its turn:
:meth:`RatePacer.wait` blocks the thread, :meth:`RatePacer.await_turn` awaits ``asyncio.sleep`` and
never blocks the event loop. The buckets may go into debt (a prompt larger than a second's worth
of tokens): the next turn comes once the debt is paid at the rate.

A provider that says its window is used up (``x-ratelimit-remaining-requests: 0`` with its reset
time) or answers 429 with ``retry-after`` pauses the pacer until then: no turn is given before it,
a request that was already waiting for a turn inside the pause takes a new one after it, and the
buckets restart empty (no burst at the reset). A header's limit lower than ``--rpm``/``--tpm``
(or when none is set) becomes the rate; a header never raises the rate above the flag.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from dataclasses import dataclass
from typing import Callable

from tribunal.core.rate_limit_headers import RateLimitReport

BURST_SECONDS = 1.0
"""How many seconds of the rate a bucket holds: the most requests (tokens) sent at once after a lull."""


class TokenBucket:
    """``per_minute`` units a minute, at most :data:`BURST_SECONDS` of them at once; may go into debt."""

    def __init__(self, per_minute: float, now: float):
        self.rate = per_minute / 60.0
        self.capacity = max(1.0, self.rate * BURST_SECONDS)
        self.level = self.capacity
        self.last = now  # the time ``level`` is true at (in the future while held)

    def _advance(self, t: float) -> None:
        if t > self.last:
            self.level = min(self.capacity, self.level + (t - self.last) * self.rate)
            self.last = t

    def reserve(self, amount: float, at: float) -> float:
        """Take ``amount`` at ``at`` or later; the time it may be used (after the debt it makes is paid)."""
        self._advance(at)
        start = max(at, self.last)
        self.level -= amount
        return start if self.level >= 0 else start + -self.level / self.rate

    def charge(self, amount: float, now: float) -> None:
        """Take ``amount`` more (negative: give it back, up to the capacity)."""
        self._advance(now)
        self.level = min(self.capacity, self.level - amount)

    def set_rate(self, per_minute: float, now: float) -> None:
        """A new rate from now on (the level kept, capped at the new capacity)."""
        self._advance(now)
        self.rate = per_minute / 60.0
        self.capacity = max(1.0, self.rate * BURST_SECONDS)
        self.level = min(self.level, self.capacity)

    def hold_until(self, until: float, now: float) -> None:
        """Nothing to take before ``until``; from then on it refills from empty (or its debt)."""
        self._advance(now)
        if until > self.last:
            self.level = min(self.level, 0.0)
            self.last = until


@dataclass
class Turn:
    """A request's reserved turn: when it may be sent, and the tokens it took."""

    at: float
    tokens: float


class RatePacer:
    """The requests and tokens per minute one provider model takes; shared by every LM calling it."""

    def __init__(self, rpm: float | None = None, tpm: float | None = None,
                 clock: Callable[[], float] = time.monotonic):
        self._clock = clock
        self._lock = threading.Lock()
        self._configured: dict[str, float | None] = {"requests": None, "tokens": None}
        self._reported: dict[str, float | None] = {"requests": None, "tokens": None}
        self._buckets: dict[str, TokenBucket | None] = {"requests": None, "tokens": None}
        self.paused_until = -math.inf
        self.waited = 0.0  # seconds requests spent waiting for their turn, all together
        self.pauses = 0  # times a provider's headers paused the pacer
        self._last_tokens = 0.0
        self.configure(rpm, tpm)

    def __deepcopy__(self, memo: dict) -> "RatePacer":  # an LM copied by DSPy keeps its provider's one pacer
        return self

    def configure(self, rpm: float | None, tpm: float | None) -> None:
        """The flags' limits (None: no limit of one's own; the headers' still apply)."""
        with self._lock:
            self._configured = {"requests": rpm, "tokens": tpm}
            for kind in self._buckets:
                self._retune(kind)

    def rate(self, kind: str) -> float | None:
        """The ``requests`` or ``tokens`` per minute paced at now (None: unbounded)."""
        bucket = self._buckets[kind]
        return None if bucket is None else bucket.rate * 60.0

    def _retune(self, kind: str) -> None:
        limits = [v for v in (self._configured[kind], self._reported[kind]) if v]
        bucket, now = self._buckets[kind], self._clock()
        if not limits:
            self._buckets[kind] = None
        elif bucket is None:
            self._buckets[kind] = TokenBucket(min(limits), now)
        elif min(limits) != bucket.rate * 60.0:
            bucket.set_rate(min(limits), now)

    @property
    def limited(self) -> bool:
        """Whether a request may have to wait (a rate is set, or a pause is on)."""
        buckets = self._buckets
        return buckets["requests"] is not None or buckets["tokens"] is not None or \
            self.paused_until > self._clock()

    def reserve(self, tokens: float) -> Turn:
        """The next turn for a request of about ``tokens`` prompt tokens (in the order asked)."""
        with self._lock:
            now = self._clock()
            at = max(now, self.paused_until)
            start = at
            for kind, amount in (("requests", 1.0), ("tokens", tokens)):
                bucket = self._buckets[kind]
                if bucket is not None:
                    start = max(start, bucket.reserve(amount, at))
            self._last_tokens = tokens
            return Turn(start, tokens)

    def _retake(self, turn: Turn) -> Turn | None:
        """A new turn for ``turn`` if a pause came over it while it waited (its old one given back), else None."""
        with self._lock:
            now = self._clock()
            if self.paused_until <= now:
                return None
            for kind, amount in (("requests", 1.0), ("tokens", turn.tokens)):
                if self._buckets[kind] is not None:
                    self._buckets[kind].charge(-amount, now)
        return self.reserve(turn.tokens)

    def _count_wait(self, seconds: float) -> None:
        with self._lock:
            self.waited += seconds

    def wait(self, tokens: float) -> Turn:
        """Block this thread until a request of ``tokens`` prompt tokens may be sent; its turn."""
        turn = self.reserve(tokens)
        while True:
            delay = turn.at - self._clock()
            if delay > 0:
                self._count_wait(delay)
                time.sleep(delay)
            again = self._retake(turn)
            if again is None:
                return turn
            turn = again

    async def await_turn(self, tokens: float) -> Turn:
        """:meth:`wait` for a coroutine: ``asyncio.sleep`` until the turn (the loop keeps running)."""
        turn = self.reserve(tokens)
        while True:
            delay = turn.at - self._clock()
            if delay > 0:
                self._count_wait(delay)
                await asyncio.sleep(delay)
            again = self._retake(turn)
            if again is None:
                return turn
            turn = again

    def settle(self, turn: Turn | None, used_tokens: float | None) -> None:
        """The answer reported ``used_tokens`` (prompt and completion): the estimate's error is charged."""
        if turn is None or used_tokens is None:
            return
        with self._lock:
            bucket = self._buckets["tokens"]
            if bucket is not None:
                bucket.charge(used_tokens - turn.tokens, self._clock())

    def observe(self, report: RateLimitReport) -> None:
        """Take in what a response's headers said: lower rates, a pause until a reset or ``retry-after``."""
        if report.empty:
            return
        with self._lock:
            for kind, limit in (("requests", report.limit_requests), ("tokens", report.limit_tokens)):
                if limit and limit != self._reported[kind]:
                    self._reported[kind] = limit
                    self._retune(kind)
            waits = [report.retry_after or 0.0]
            if report.remaining_requests is not None and report.remaining_requests < 1:
                waits.append(report.reset_requests or 0.0)
            if report.remaining_tokens is not None and report.remaining_tokens < max(1.0, self._last_tokens):
                waits.append(report.reset_tokens or 0.0)
            if max(waits) > 0:
                self._pause(max(waits))

    def _pause(self, seconds: float) -> None:
        """No turn before ``seconds`` from now (called with the lock held)."""
        now = self._clock()
        until = now + seconds
        if until <= self.paused_until:
            return
        self.paused_until = until
        self.pauses += 1
        for bucket in self._buckets.values():
            if bucket is not None:
                bucket.hold_until(until, now)

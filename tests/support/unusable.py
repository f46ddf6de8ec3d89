"""A loopback peer that gives an unusable answer now and then, as real models and providers do (no transport fault).

:func:`unusable_answers` is a ``bad_answer`` hook for :func:`tests.support.loopback.loopback_server`: a share
``rate`` of requests gets a refusal, a JSON object with the wrong keys, or an answer cut at the token limit
(``finish_reason: "length"``), a third each. The draw is a hash of the seed, the request body and how many
times that same body has arrived before, so a run is reproducible under any concurrency, a re-ask (a new
body: feedback turns, a larger token limit) is a fresh draw, and so is the same request sent again by a
later run (a provider's bad answer is not a property of the request). A cut answer is a long one: it fits,
and is not cut, when the request allows at least ``long_answer`` tokens; with ``long_answer=None`` answers
are cut at random whatever the limit (a server that drops a stream, a gateway's own cap), so raising the
limit does not help. ``kinds`` may add transport faults (``429``, ``500``, ``timeout``: see
:mod:`tests.support.loopback`) to the mix, drawn alike.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import Counter
from typing import Any, Callable

from tests.support.loopback import UNUSABLE


def _limit(body: dict[str, Any]) -> int | None:
    value = body.get("max_tokens") or body.get("max_completion_tokens")
    return int(value) if value else None


MIXED = ("429", "500", "timeout", *UNUSABLE)


def unusable_answers(rate: float, seed: int = 0, long_answer: int | None = 2048,
                     kinds_drawn: tuple[str, ...] = UNUSABLE) -> Callable[[dict[str, Any]], str | None]:
    """The ``bad_answer`` hook; ``hook.kinds`` counts the unusable answers given, ``hook.asked`` all requests."""
    arrivals: Counter = Counter()
    kinds: Counter = Counter()
    lock = threading.Lock()

    def hook(body: dict[str, Any]) -> str | None:
        text = json.dumps(body, sort_keys=True)
        with lock:
            arrivals[text] += 1
            arrival = arrivals[text]
        digest = hashlib.sha256(f"{seed}\0{arrival}\0{text}".encode()).digest()
        if int.from_bytes(digest[:8], "big") / 2**64 >= rate:
            return None
        kind = kinds_drawn[digest[8] % len(kinds_drawn)]
        if kind == "truncated" and long_answer is not None and (_limit(body) or 0) >= long_answer:
            return None  # the long answer fits under this limit
        with lock:
            kinds[kind] += 1
        return kind

    hook.kinds = kinds
    return hook


def random_faults(rate: float, seed: int = 0,
                  kinds_drawn: tuple[str, ...] = MIXED) -> Callable[[int, str, dict[str, Any]], str | None]:
    """A ``fault`` hook for :func:`tests.support.loopback.loopback_server` (the tests' HTTP-level injection).

    Each hit, in arrival order, draws a fault with probability ``rate`` from a generator seeded with ``seed``,
    whatever the request: a retry or a re-ask is a fresh draw, the order of arrival under concurrency decides
    which request gets which fault (as on a shared provider), and a cut answer is cut whatever the token limit
    (the hook sees no body). ``hook.kinds`` counts the faults given."""
    import random

    generator = random.Random(seed)
    kinds: Counter = Counter()

    def hook(number: int, name: str, inputs: dict[str, Any]) -> str | None:
        if generator.random() >= rate:  # called under the server's lock: one draw per hit, in order
            return None
        kind = kinds_drawn[generator.randrange(len(kinds_drawn))]
        kinds[kind] += 1
        return kind

    hook.kinds = kinds
    return hook

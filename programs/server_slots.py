"""How many requests an OpenAI-compatible server serves at once, found out before a run sends any.

A server that serves N requests at once queues the (N+1)-th; queued, a request's client-side
timeout runs while it waits for the requests ahead of it, so a run sending more than N at once
sees requests dropped by its own client before the server ever started them (and sent again, to
queue again). So tribunal finds N out, and sends no more than N at once to that server
(:func:`gate`, held by :class:`~tribunal.programs.server_engine.ServerEngine` around each
request, and the run's call slots capped at N, :func:`tribunal.runner.connections.server_bound`).
With the slots respected, a request is started on arrival, so its timeout counts the time the
server spends on it, not the time it waited.

The rule (:func:`discover`), first that answers:

1. ``--server-slots N``: N.
2. tribunal's own local server (``--lm local``): 1. llama-cpp-python's server, which tribunal runs,
   serves one request at a time (its app holds one lock per request) and exposes neither route below.
3. ``GET <root>/props`` with a positive integer ``total_slots`` (llama.cpp's ``llama-server``: its
   ``--parallel``), ``<root>`` being the API base without its ``/v1``.
4. ``GET <root>/slots`` answering a non-empty JSON list: one entry per slot (``llama-server``, unless
   started with ``--no-slots``).
5. ``--server-slots probe``: :func:`probe` (ten one-token requests; see there).
6. Otherwise the server says nothing (vLLM, Ollama, a gateway): none is known, and the run sends
   as many at once as its ``--concurrency``.

Each look-up waits at most :data:`LOOKUP_SECONDS`; each server is looked up once per process, and
what was found is put in ``TRIBUNAL_KNOWN_SERVER_SLOTS`` so that worker processes and commands
started by this one take it as it is.
"""

from __future__ import annotations

import json
import os
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Literal

from tribunal.core.call_slots import CallSlots

LOOKUP_SECONDS = 2.0
"""Longest wait for ``/props`` or ``/slots`` to answer (a server that does not answer in time says nothing)."""
LOCAL_SERVER_SLOTS = 1
PROBE_WIDTH = 8
"""Most requests a probe sends at once (it also sends one alone first)."""
PROBE = "probe"
KNOWN_ENV = "TRIBUNAL_KNOWN_SERVER_SLOTS"  # JSON {endpoint: [slots, source]} found by this process or its parent

ServerSlotsSetting = int | Literal["probe"] | None
"""``--server-slots``: N, ``probe``, or None (what the server says, if anything)."""


@dataclass(frozen=True)
class SlotsFound:
    """What is known of a server's slots: ``slots`` (None: nothing) and where that came from."""

    slots: int | None
    source: str

    def describe(self, endpoint: str) -> str:
        """One line for the user: how many requests ``endpoint`` is sent at once, and why."""
        if self.slots is None:
            return (f"{endpoint} does not say how many requests it serves at once ({self.source}): "
                    "the run's --concurrency is sent; if it serves fewer, pass --server-slots N (or probe)")
        return f"{endpoint} serves {self.slots} request{'' if self.slots == 1 else 's'} at once ({self.source})"


_lock = threading.Lock()
_gates: dict[str, CallSlots] = {}  # endpoint -> the slots every engine of this process holds around a request


def root_url(api_base: str) -> str:
    """The server's root: ``api_base`` without a trailing ``/v1`` (llama-server's ``/props`` lives there)."""
    base = api_base.rstrip("/")
    return base[: -len("/v1")] if base.endswith("/v1") else base


def _get_json(url: str, api_key: str | None) -> object | None:
    """The JSON a GET of ``url`` answers with HTTP 200 within :data:`LOOKUP_SECONDS`, else None."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=LOOKUP_SECONDS) as answer:
            return json.loads(answer.read()) if answer.status == 200 else None
    except (urllib.error.URLError, OSError, ValueError):
        return None


def from_props(api_base: str, api_key: str | None = None) -> int | None:
    """``total_slots`` of ``<root>/props`` (llama-server), or None when the server does not say it."""
    props = _get_json(f"{root_url(api_base)}/props", api_key)
    total = props.get("total_slots") if isinstance(props, dict) else None
    return total if isinstance(total, int) and not isinstance(total, bool) and total > 0 else None


def from_slots(api_base: str, api_key: str | None = None) -> int | None:
    """The number of entries of ``<root>/slots`` (llama-server), or None when the server has no such list."""
    slots = _get_json(f"{root_url(api_base)}/slots", api_key)
    return len(slots) if isinstance(slots, list) and slots and all(isinstance(s, dict) for s in slots) else None


def _known() -> dict[str, list]:
    try:
        value = json.loads(os.environ.get(KNOWN_ENV, "") or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _remember(endpoint: str, found: SlotsFound) -> SlotsFound:
    with _lock:
        os.environ[KNOWN_ENV] = json.dumps({**_known(), endpoint: [found.slots, found.source]})
    return found


def known(endpoint: str) -> SlotsFound | None:
    """What this process (or the one that started it) found for ``endpoint``, or None if it never looked."""
    entry = _known().get(endpoint)
    if not isinstance(entry, list) or len(entry) != 2:
        return None
    return SlotsFound(entry[0] if isinstance(entry[0], int) else None, str(entry[1]))


def discover(api_base: str, model: str | None = None, api_key: str | None = None, setting: ServerSlotsSetting = None,
             local: bool = False, timeout: float = 120.0) -> SlotsFound:
    """How many requests the server at ``api_base`` serves at once, by the module's rule (once per process)."""
    if isinstance(setting, int):
        return _remember(api_base, SlotsFound(setting, "--server-slots"))
    if local:
        return _remember(api_base, SlotsFound(LOCAL_SERVER_SLOTS, "llama-cpp-python's server, run by tribunal, "
                                                                  "serves one at a time"))
    earlier = known(api_base)
    if earlier is not None and (earlier.slots is not None or setting != PROBE):
        return earlier
    total = from_props(api_base, api_key)
    if total is not None:
        return _remember(api_base, SlotsFound(total, "its /props: total_slots"))
    listed = from_slots(api_base, api_key)
    if listed is not None:
        return _remember(api_base, SlotsFound(listed, "its /slots"))
    if setting == PROBE and model:
        return _remember(api_base, probe(api_base, model, api_key, timeout=timeout))
    return _remember(api_base, SlotsFound(None, "no /props or /slots"))


def _one_token(api_base: str, model: str, api_key: str | None, timeout: float, number: int) -> float:
    """Send a one-token chat request (its prompt its own, ``number``); the monotonic time its answer was read
    (an error counts as answered)."""
    body = json.dumps({"model": model.partition("/")[2] or model, "max_tokens": 1, "temperature": 0,
                       "messages": [{"role": "user", "content": f"Say {number}."}]}).encode()
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {api_key}"} if api_key else {})}
    request = urllib.request.Request(f"{api_base.rstrip('/')}/chat/completions", data=body, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            answer.read()
    except (urllib.error.URLError, OSError, ValueError):
        pass
    return time.monotonic()


def probe(api_base: str, model: str, api_key: str | None = None, width: int = PROBE_WIDTH,
          timeout: float = 120.0) -> SlotsFound:
    """The slots a server shows when ``width`` one-token requests reach it at once.

    Two requests are sent alone, one after the other (the first loads what a server loads on a first
    request; the second's latency is ``d``), then ``width`` at once. Every prompt differs (a server that
    reuses the previous prompt's prefix would answer a repeated one at no cost). A server serving them
    side by side answers them together; one serving k at a time answers the (k+1)-th about ``d`` after
    the first k. The slots are the requests answered within ``d / 2`` of the first answer. ``width``
    answered together: at least ``width`` (none known beyond that: the run's --concurrency is sent).
    Cost: ``width + 2`` requests of one token. A server whose answers take less time than the network's
    round trip looks as if it served them together (so does one that answers before it reads the prompt).
    """
    _one_token(api_base, model, api_key, timeout, 0)
    start = time.monotonic()
    alone = _one_token(api_base, model, api_key, timeout, 1) - start
    with ThreadPoolExecutor(width, thread_name_prefix="slots-probe") as pool:
        finished = sorted(pool.map(lambda n: _one_token(api_base, model, api_key, timeout, n), range(2, width + 2)))
    together = sum(1 for t in finished if t - finished[0] <= alone / 2)
    rule = f"a probe: {together} of {width} one-token requests answered together, one alone took {alone:.3f} s"
    if together >= width:
        return SlotsFound(None, rule)
    return SlotsFound(together, rule)


def gate(endpoint: str, slots: int) -> CallSlots:
    """The call slots every request of this process to ``endpoint`` holds while it is out (``slots`` of them).

    Shared by every engine talking to the endpoint (a run's roles, its threads), so however many
    LMs a run builds, no more than ``slots`` requests are at the server at once. The first size
    given for an endpoint is kept.
    """
    with _lock:
        slots_of = _gates.get(endpoint)
        if slots_of is None:
            slots_of = _gates[endpoint] = CallSlots(slots)
        return slots_of

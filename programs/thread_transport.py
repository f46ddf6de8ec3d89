"""An HTTP transport with a connection per call slot: no lock that every LM call contends for.

lm15's stdlib transport (vendored in DSPy) keeps one connection pool per router: every request
takes the pool's semaphore, then its lock to check a connection out (running a ``select()`` on it,
to see whether the peer closed it, while holding the lock), and the lock again to check it back
in. With 32-128 worker threads calling at once, a profile of the M-MAD runner found about a fifth
of its samples waiting there.

:class:`ThreadTransport` gives each call slot (:func:`tribunal.core.call_slots.current_slot`: at
most one call holds a slot number at a time) its own ``StdlibTransport``, a pool of a few
connections that only the call holding that slot uses, so the locks a request takes are never
contended. A call made outside a slot (no scheduler, e.g. a single judgment) uses its thread's own.
The proxy is settled once, when the transport is built for its server (:func:`proxy_settings`):
lm15 otherwise reads ``HTTP_PROXY``/``NO_PROXY`` from the environment on every request, which
decodes the whole environment each time.

The sockets open are then at most one per slot, reused call after call by whichever thread holds
the slot, however many threads a run has (its fan-out makes one per waiting call). The number of
calls in flight is bounded by tribunal's call slots (:mod:`tribunal.core.scheduling`), not by a
pool. The transport is tribunal's own, passed to the lm15 router of a
:class:`~tribunal.programs.server_engine.ServerEngine` (``RouterConfig(transport=...)``): nothing in
DSPy is replaced. Each response's status and headers are shown to the rate pacer of the request
(:mod:`tribunal.core.pacing_gate`): the provider's ``x-ratelimit-*`` and ``retry-after`` pace the run.
"""

from __future__ import annotations

import threading
import weakref
from urllib.parse import urlsplit
from urllib.request import getproxies, proxy_bypass
from typing import Any

from tribunal.core.call_slots import current_slot
from tribunal.core.pacing_gate import report_response

PER_THREAD_CONNECTIONS = 2
"""Connections a slot's (or thread's) own pool may hold: one in use, one spare for a response still being released."""


def proxy_settings(api_base: str | None) -> dict[str, Any]:
    """``StdlibTransport`` keywords that route requests to ``api_base`` as the environment says, read now.

    The same rule lm15 applies per request (``HTTP_PROXY``/``HTTPS_PROXY``/``ALL_PROXY``, minus
    ``NO_PROXY``), applied once: a proxy pinned with ``proxy=``, or ``trust_env=False`` for a direct
    connection. Without ``api_base`` (the target unknown), lm15 keeps reading the environment per request.
    """
    if api_base is None:
        return {}
    target = urlsplit(api_base)
    proxies = getproxies()
    proxy = proxies.get(target.scheme) or proxies.get("all")
    if proxy and not proxy_bypass(target.hostname or ""):
        return {"proxy": proxy}
    return {"trust_env": False}


class ThreadTransport:
    """``stream(request)`` through the call slot's own ``StdlibTransport`` (else the thread's; built on first use).

    ``api_base``: the one server this transport talks to, so that its proxy is settled once.
    """

    def __init__(self, timeouts: Any = None, api_base: str | None = None):
        self._kwargs: dict[str, Any] = {"max_connections": PER_THREAD_CONNECTIONS, **proxy_settings(api_base)}
        if timeouts is not None:
            self._kwargs |= dict(connect_timeout=timeouts.connect, read_timeout=timeouts.read,
                                 write_timeout=timeouts.write, pool_timeout=timeouts.pool)
        self._local = threading.local()
        self._slots: dict[int, Any] = {}  # slot number -> its transport
        self._lock = threading.Lock()  # taken once per slot or thread (its first call) and by close()
        self._all: weakref.WeakSet = weakref.WeakSet()  # a finished thread's transport closes when collected
        self._closed = False

    def _own(self) -> Any:
        slot = current_slot()
        if slot is not None:
            transport = self._slots.get(slot)
            if transport is None:
                transport = self._slots[slot] = self._new()
            return transport
        transport = getattr(self._local, "transport", None)
        if transport is None:
            transport = self._local.transport = self._new()
        return transport

    def _new(self) -> Any:
        from dspy._vendor.lm15.transports import StdlibTransport  # heavy: dspy, pydantic

        with self._lock:
            if self._closed:
                raise RuntimeError("transport is closed")
            transport = StdlibTransport(**self._kwargs)
            self._all.add(transport)
        return transport

    def stream(self, request: Any) -> Any:
        """Send ``request`` on this slot's (or thread's) connection (lm15's ``SyncTransport`` surface); its
        response's rate-limit headers go to the request's pacer (:func:`~tribunal.core.pacing_gate.report_response`)."""
        response = self._own().stream(request)
        report_response(getattr(response, "status", None), getattr(response, "headers", None))
        return response

    def close(self) -> None:
        """Close every slot's and thread's connections."""
        with self._lock:
            self._closed = True
            transports = list(self._all)
            self._slots.clear()
        for transport in transports:
            transport.close()

"""An HTTP transport with a connection per calling thread: no lock that every LM call contends for.

lm15's stdlib transport (vendored in DSPy) keeps one connection pool per router: every request
takes the pool's semaphore, then its lock to check a connection out (running a ``select()`` on it,
to see whether the peer closed it, while holding the lock), and the lock again to check it back
in. With 32-128 worker threads calling at once, a profile of the M-MAD runner found about a fifth
of its samples waiting there.

:class:`ThreadTransport` gives each calling thread its own ``StdlibTransport`` (each a pool of a
few connections that only that thread uses), so the locks a request takes are never contended.
A thread makes one call at a time, so it keeps one connection alive between its calls. The number
of calls in flight is bounded by tribunal's call slots
(:mod:`tribunal.core.scheduling`), not by a pool; the sockets open are at most one per thread
that has called. The transport is tribunal's own, passed to the lm15 router of a
:class:`~tribunal.programs.server_engine.ServerEngine` (``RouterConfig(transport=...)``): nothing in
DSPy is replaced.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

PER_THREAD_CONNECTIONS = 2
"""Connections a thread's own pool may hold: one in use, one spare for a response still being released."""


class ThreadTransport:
    """``stream(request)`` through the calling thread's own ``StdlibTransport`` (built on its first call)."""

    def __init__(self, timeouts: Any = None):
        self._kwargs: dict[str, Any] = {"max_connections": PER_THREAD_CONNECTIONS}
        if timeouts is not None:
            self._kwargs |= dict(connect_timeout=timeouts.connect, read_timeout=timeouts.read,
                                 write_timeout=timeouts.write, pool_timeout=timeouts.pool)
        self._local = threading.local()
        self._lock = threading.Lock()  # taken once per thread (its first call) and by close()
        self._all: weakref.WeakSet = weakref.WeakSet()  # a finished thread's transport closes when collected
        self._closed = False

    def _own(self) -> Any:
        transport = getattr(self._local, "transport", None)
        if transport is None:
            from dspy._vendor.lm15.transports import StdlibTransport  # heavy: dspy, pydantic

            with self._lock:
                if self._closed:
                    raise RuntimeError("transport is closed")
                transport = self._local.transport = StdlibTransport(**self._kwargs)
                self._all.add(transport)
        return transport

    def stream(self, request: Any) -> Any:
        """Send ``request`` on this thread's connection (lm15's ``SyncTransport`` surface)."""
        return self._own().stream(request)

    def close(self) -> None:
        """Close every thread's connections."""
        with self._lock:
            self._closed = True
            transports = list(self._all)
        for transport in transports:
            transport.close()

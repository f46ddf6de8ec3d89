"""The async twin of :class:`~tribunal.programs.server_engine.ServerEngine`: calls in flight cost a socket, not a thread.

``mt evaluate --judging async`` sends every request from one event loop: DSPy awaits an engine's
``async def complete`` (its ``async_engine``), and this one sends the request through DSPy's
``AsyncLM15Engine`` on lm15's asyncio transport (``StdlibAsyncTransport``: HTTP/1.1 on asyncio
streams, a pool of keep-alive connections). The pool holds up to :data:`MAX_CONNECTIONS`: the run's
call slots bound the requests out, so the sockets open are at most the slots, reused call after
call (no socket per slot number: a task takes any idle connection of the pool).

Everything else is the sync engine's: the same lm15 door, the same JSON steps (a server that
refuses ``json_schema`` is asked the next step, remembered per endpoint for both engines), the
same re-sends after a connection error to a local model's server (its ``recover`` runs on a helper
thread: it waits for the server to restart). The sync engine's per-endpoint gate is a threading
semaphore and is not held here: the async runner's own slots are already lowered to the server's
(:func:`tribunal.runner.connections.server_bound`). Each response's status and headers go to the
request's rate pacer (:class:`ReportingTransport`, :mod:`tribunal.core.pacing_gate`).
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from typing import Any, AsyncIterator

from tribunal.core.pacing_gate import report_response

from tribunal.programs.server_engine import (DIALECT, JSON_STEPS, RESENDS, ServerEngine, _ask, first_step, routed_to_door,
                                             stepped_down)
from tribunal.programs.thread_transport import proxy_settings

MAX_CONNECTIONS = 4096
"""The most sockets the pool keeps (``--concurrency`` up to 4,096 on the async path)."""


class AsyncServerEngine:
    """``async complete(Request) -> Response`` against the server of ``sync`` (a ``ServerEngine``)."""

    def __init__(self, sync: Any):
        self.sync = sync
        self.api_base, self.cache_endpoint = sync.api_base, sync.cache_endpoint
        self._loops: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # event loop -> its engine

    def _engine(self) -> Any:
        """This event loop's ``AsyncLM15Engine`` (an asyncio pool serves the loop that opened it only:
        a second run, e.g. the re-ask pass, has its own loop)."""
        loop = asyncio.get_running_loop()
        engine = self._loops.get(loop)
        if engine is None:
            engine = self._loops[loop] = self._new_engine()
        return engine

    def _new_engine(self) -> Any:
        from dspy._vendor.lm15.transports import StdlibAsyncTransport  # heavy: dspy, pydantic
        from dspy.clients.engines.lm15_engine import AsyncLM15Engine, timeouts_for  # heavy: dspy, pydantic
        from dspy.lm15 import RouterConfig  # heavy: dspy, pydantic

        sync = self.sync
        timeouts = timeouts_for(sync.timeout)
        kwargs: dict[str, Any] = {"max_connections": MAX_CONNECTIONS, **proxy_settings(sync.api_base)}
        if timeouts is not None:
            kwargs |= dict(connect_timeout=timeouts.connect, read_timeout=timeouts.read,
                           write_timeout=timeouts.write, pool_timeout=timeouts.pool)
        config = RouterConfig(env={}, api_keys={DIALECT: sync.api_key} if sync.api_key else None,
                              base_urls={DIALECT: sync.api_base},
                              transport=ReportingTransport(StdlibAsyncTransport(**kwargs)))
        return AsyncLM15Engine(config, model_type="chat")

    def __getattr__(self, name: str) -> Any:  # supports_*, supported_params, answers_in_json: the sync engine's
        return getattr(self.sync, name)

    async def complete(self, request: Any) -> Any:
        """The call, sent again after a connection error once the local server answers again."""
        from dspy import lm15  # heavy: dspy, pydantic

        for attempt in range(RESENDS + 1):
            try:
                return await self._complete(request)
            except lm15.TransportError:
                recover = getattr(self.sync, "_recover", None)
                if recover is None or attempt == RESENDS:
                    raise
                await asyncio.to_thread(recover)

    async def _complete(self, request: Any) -> Any:
        routed = routed_to_door(request)
        if not routed.config.response_format:
            return await _sent(self._engine(), routed)
        index = first_step(self.api_base)
        while True:
            try:
                return await _sent(self._engine(), _ask(routed, JSON_STEPS[index]))
            except Exception as err:  # noqa: BLE001 - only a refused format steps down; the rest propagates
                index = stepped_down(self.api_base, err, index)

    async def stream(self, request: Any):
        raise NotImplementedError("tribunal does not stream")
        yield  # pragma: no cover - makes this an async generator, as the engine protocol has it

    async def aclose(self) -> None:
        """Close this loop's connections (on the loop that used them)."""
        engine = self._loops.pop(asyncio.get_running_loop(), None)
        if engine is not None:
            transport = engine.config.transport
            await engine.aclose()
            await transport.aclose()


async def _sent(engine: Any, request: Any) -> Any:
    """``await engine.complete(request)``, its routing done on the loop.

    DSPy's ``AsyncLM15Engine.complete`` routes each request on a helper thread (``asyncio.to_thread``)
    in case building the provider reads credentials; this engine's provider is given its key and base
    URL (no read), and routing is pure Python under the GIL, so the hop only cost a future, a thread
    wake-up and a GIL hand-over per call: 15% of the loop's CPU at 128 calls in flight
    (``benchmarks/bench_client_cpu.py --profile-gil``). An engine without ``_target`` (another DSPy
    version) is awaited as it is."""
    target = getattr(engine, "_target", None)
    if target is None:
        return await engine.complete(request)
    provider, routed = target(request)
    return await provider.complete(routed)


class ReportingTransport:
    """An asyncio transport whose responses' status and headers go to the request's rate pacer
    (:func:`~tribunal.core.pacing_gate.report_response`), as :class:`~tribunal.programs.thread_transport.ThreadTransport` does on threads."""

    def __init__(self, inner: Any):
        self.inner = inner

    def __getattr__(self, name: str) -> Any:  # aclose, and whatever else lm15 asks of its transport
        return getattr(self.inner, name)

    @contextlib.asynccontextmanager
    async def stream(self, request: Any) -> AsyncIterator[Any]:
        """``async with transport.stream(request) as response`` (the only form lm15's async providers use)."""
        async with self.inner.stream(request) as response:
            report_response(response.status, response.headers)
            yield response


class OnHelperThreads:
    """An async face for an engine with only a sync ``complete`` (a test's scripted engine, a router):
    each request runs on the loop's helper threads (``asyncio.to_thread``)."""

    def __init__(self, sync: Any):
        self.sync = sync

    def __getattr__(self, name: str) -> Any:
        return getattr(self.sync, name)

    async def complete(self, request: Any) -> Any:
        return await asyncio.to_thread(self.sync.complete, request)

    async def stream(self, request: Any):
        raise NotImplementedError("tribunal does not stream")
        yield  # pragma: no cover


def async_engine_for(engine: Any) -> Any:
    """The engine DSPy awaits for ``engine``: a :class:`ServerEngine`'s async twin (built once), an engine
    whose ``complete`` is already a coroutine function as it is, any other on helper threads."""
    if isinstance(engine, ServerEngine):
        if engine.async_twin is None:
            engine.async_twin = AsyncServerEngine(engine)
        return engine.async_twin
    if asyncio.iscoroutinefunction(getattr(engine, "acomplete", None)):
        return _Renamed(engine)
    return OnHelperThreads(engine)


class _Renamed(OnHelperThreads):
    """An engine whose async call is ``acomplete`` (beside its sync ``complete``)."""

    async def complete(self, request: Any) -> Any:
        return await self.sync.acomplete(request)

"""Connections of a run: an HTTP engine with room for every call slot, and no more calls than a server serves.

:func:`server_bound` lowers a run's ``concurrency`` to the slots of the servers its LMs talk to
(:mod:`tribunal.programs.server_slots`), so its call slots are the server's: the scheduler's order
decides which call is sent next, and no request waits in the server's queue.

DSPy's own lm15 engine caps a model at 100 connections.

DSPy builds its native engine with lm15's default pool (100 connections per router), so a run
with more call slots than that never has more than 100 calls in flight. The runner builds the
same engine (same provider route, endpoint, key and timeouts) with ``max_connections`` set to its
slots; for a model the native engine cannot route, it leaves DSPy's default in place. An
OpenAI-compatible server that is not OpenAI needs nothing here: tribunal's
:class:`~tribunal.programs.server_engine.ServerEngine` opens a connection per calling thread.
"""

from __future__ import annotations

import os
from typing import Any

from tribunal.programs.local_models import is_local
from tribunal.programs.server_slots import LOCAL_SERVER_SLOTS, SlotsFound, known

DSPY_DEFAULT_CONNECTIONS = 100


def pooled_engine(settings: Any, connections: int) -> Any | None:
    """An ``LM15Engine`` for ``settings`` with ``connections`` sockets, or None when DSPy's suffices."""
    if connections <= DSPY_DEFAULT_CONNECTIONS or settings.engine == "litellm":
        return None
    from tribunal.programs.lm import on_server  # heavy: pulls in pydantic

    if on_server(settings):  # tribunal's ServerEngine: a connection per thread, no cap (build_lm makes it)
        return None
    from dspy.clients.engines.lm15_engine import LM15Engine, timeouts_for  # heavy: dspy, pydantic
    from dspy.lm15 import RouterConfig  # heavy: dspy, pydantic

    try:
        provider = LM15Engine(RouterConfig(env={}), model_type="chat").resolve(settings.model).provider
    except Exception:  # noqa: BLE001 - a model lm15 cannot route: DSPy picks its engine as usual
        return None
    key = os.environ.get(settings.api_key_env) if settings.api_key_env else None
    config = RouterConfig(api_keys={provider: key} if key else None,
                          base_urls={provider: settings.api_base} if settings.api_base else None,
                          timeouts=timeouts_for(settings.timeout), max_connections=connections)
    return LM15Engine(config, model_type="chat")


def _server_of(settings: Any) -> tuple[str, SlotsFound] | None:
    """``(endpoint, what is known of its slots)`` for an LM on an OpenAI-compatible server, else None."""
    from tribunal.programs.lm import on_server  # heavy: pulls in pydantic

    if not on_server(settings):
        return None
    if is_local(settings.model):
        slots = settings.server_slots if isinstance(settings.server_slots, int) else LOCAL_SERVER_SLOTS
        return f"--lm {settings.model}", SlotsFound(slots, "llama-cpp-python's server, run by tribunal, "
                                                           "serves one at a time")
    found = known(settings.api_base)
    if found is None and isinstance(settings.server_slots, int):
        found = SlotsFound(settings.server_slots, "--server-slots")
    return (settings.api_base, found) if found is not None else None


def server_bound(settings: Any, roles: dict[str, Any], concurrency: int) -> int:
    """``concurrency``, lowered to the slots of any server the run's LMs talk to (once their LMs are built)."""
    from tribunal.programs.lm import role_settings  # heavy: pulls in pydantic

    bounds = [found.slots for _, found in _servers(settings, role_settings(settings, roles))
              if found.slots is not None]
    return min([concurrency, *bounds])


def server_lines(settings: Any, roles: dict[str, Any], concurrency: int) -> list[str]:
    """What the run knew of each server's slots and what it sent at once, one line each (for the summary)."""
    from tribunal.programs.lm import endpoint_label, role_settings  # heavy: pulls in pydantic

    bound = server_bound(settings, roles, concurrency)
    capped = f": calls in flight {bound} (--concurrency {concurrency})" if bound < concurrency else ""
    return [found.describe(endpoint_label(endpoint) if "://" in endpoint else endpoint) + capped
            for endpoint, found in _servers(settings, role_settings(settings, roles))]


def _servers(settings: Any, roles: dict[str, Any]) -> list[tuple[str, SlotsFound]]:
    seen: dict[str, SlotsFound] = {}
    for own in (settings, *roles.values()):
        server = _server_of(own)
        if server is not None:
            seen.setdefault(*server)
    return list(seen.items())

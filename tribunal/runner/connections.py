"""An HTTP engine with room for every call slot: DSPy's own lm15 engine caps a model at 100 connections.

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

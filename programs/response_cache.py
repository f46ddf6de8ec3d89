"""DSPy's response cache, keyed by the endpoint too.

DSPy leaves ``api_base`` / ``base_url`` out of its cache key (``IGNORED_CACHE_KEYS``), so the same
model name pointed at another server (a second vLLM deployment, another gateway) is answered from
the first server's cached responses. :func:`install` keeps only the credential out of the key, and
adds the endpoint of a custom engine that names one (``cache_endpoint``: an OpenAI-compatible
server's :class:`~tribunal.programs.server_engine.ServerEngine`, which DSPy cannot see into).
Called when tribunal builds an LM, never at import.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

ENDPOINT_KEYS = ("api_base", "base_url")
_lock = threading.Lock()


def keyed_by_engine_endpoint(key: Callable[..., Any]) -> Callable[..., Any]:
    """``PreparedCall.key`` that adds the custom engine's ``cache_endpoint`` as ``api_base``."""

    def call_key(call: Any, lm: Any, asynchronous: bool) -> Any:
        value = key(call, lm, asynchronous)
        endpoint = getattr(getattr(lm, "_engine_spec", None), "cache_endpoint", None)
        if endpoint and isinstance(value, dict):
            value = {**value, "api_base": endpoint}
        return value

    call_key.tribunal_endpoint_key = True  # type: ignore[attr-defined]
    return call_key


def install() -> None:
    """Make the endpoint part of DSPy's cache key (idempotent)."""
    from dspy.clients import execution  # heavy: dspy, pydantic

    with _lock:
        for key in ENDPOINT_KEYS:
            while key in execution.IGNORED_CACHE_KEYS:
                execution.IGNORED_CACHE_KEYS.remove(key)
        if not getattr(execution.PreparedCall.key, "tribunal_endpoint_key", False):
            execution.PreparedCall.key = keyed_by_engine_endpoint(execution.PreparedCall.key)

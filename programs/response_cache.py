"""DSPy's response cache for tribunal's own LMs, keyed by the endpoint too.

DSPy leaves ``api_base`` / ``base_url`` out of its cache key (``IGNORED_CACHE_KEYS``), so the same
model name pointed at another server (a second vLLM deployment, another gateway) would be answered
from the first server's cached responses. A custom engine owns its connection, so DSPy cannot see
its endpoint at all (an OpenAI-compatible server's :class:`~tribunal.programs.server_engine.ServerEngine`
names it as ``cache_endpoint``).

Nothing of DSPy's is changed for that: :class:`~tribunal.programs.tribunal_lm.TribunalLM` hands DSPy
an :class:`EndpointKeyedCall` (DSPy's ``PreparedCall`` whose ``key`` adds :data:`ENDPOINT_FIELD`), so
only the calls of tribunal's own LMs carry the endpoint in their key. An unusable answer is evicted
with DSPy's public ``Cache.put``: its entry is overwritten with ``None``, which DSPy reads as a miss.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from dspy.clients.execution import PreparedCall
from dspy.clients.execution import IGNORED_CACHE_KEYS
import dspy

ENDPOINT_FIELD = "tribunal_endpoint"
"""The cache-key field that holds the endpoint (not one of DSPy's ignored keys, so it counts)."""


@dataclass
class EndpointKeyedCall(PreparedCall):
    """DSPy's prepared call whose cache key holds the endpoint it is sent to (None: the provider's default)."""

    endpoint: str | None = None

    def key(self, lm: Any, asynchronous: bool) -> Any:
        value = super().key(lm, asynchronous)
        if self.endpoint and isinstance(value, dict):
            value = {**value, ENDPOINT_FIELD: self.endpoint}
        return value


_CALL_FIELDS = tuple(field.name for field in fields(PreparedCall))


def keyed_by_endpoint(call: Any, endpoint: str | None) -> Any:
    """``call`` (a ``PreparedCall``) as an :class:`EndpointKeyedCall` for ``endpoint`` (unchanged without one)."""
    if not endpoint:
        return call
    return EndpointKeyedCall(**{name: getattr(call, name) for name in _CALL_FIELDS}, endpoint=endpoint)


def evict(lm: Any, call: Any) -> None:
    """Make DSPy's response cache (memory and disk) miss ``call``'s answer from now on, if it was cached."""
    if not getattr(call, "cache", False):
        return
    for asynchronous in (False, True):  # DSPy keys a call made by acall apart (mt evaluate --judging async)
        try:
            request = call.key(lm, asynchronous)
        except Exception:  # noqa: BLE001 - DSPy could not key it either, so it never stored it
            continue
        dspy.cache.put(request, None, IGNORED_CACHE_KEYS)  # None reads as a miss; the next answer overwrites it

"""DSPy's response cache, keyed by the endpoint too.

DSPy leaves ``api_base`` / ``base_url`` out of its cache key (``IGNORED_CACHE_KEYS``), so the same
model name pointed at another server (a second vLLM deployment, another gateway) is answered from
the first server's cached responses. :func:`install` keeps only the credential out of the key.
Called when tribunal builds an LM, never at import.
"""

from __future__ import annotations

import threading

ENDPOINT_KEYS = ("api_base", "base_url")
_lock = threading.Lock()


def install() -> None:
    """Make the endpoint part of DSPy's cache key (idempotent)."""
    from dspy.clients import execution

    with _lock:
        for key in ENDPOINT_KEYS:
            while key in execution.IGNORED_CACHE_KEYS:
                execution.IGNORED_CACHE_KEYS.remove(key)

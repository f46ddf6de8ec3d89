"""What the provider said about each LM call made in a context: why it stopped, its token limit, its cache entry.

DSPy 3.4 turns a completion into plain output texts before the adapter sees it: the finish reason
(``"length"`` when the answer was cut at the token limit) stays on the call's result, which DSPy hands
to ``dspy.clients.execution.finalize`` together with the prepared call (whose ``key`` is the response
cache's key). :func:`install` wraps ``finalize`` so the calls made inside :func:`watching` are
recorded as :class:`SeenCall` (nothing is recorded, and nothing changes, outside it). A
:class:`SeenCall` can evict its answer from DSPy's memory and disk cache: an answer that turned out
unusable must never be served again. Called lazily, never at import.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
import warnings
from dataclasses import dataclass
from typing import Any, Iterator
from dspy.clients import execution
from dspy.clients.legacy_outputs import value
import dspy

_SEEN: contextvars.ContextVar[list | None] = contextvars.ContextVar("tribunal_seen_calls", default=None)
_lock = threading.Lock()
_installed = False


@dataclass
class SeenCall:
    """One completed LM call: the LM, DSPy's prepared call and its result."""

    lm: Any
    call: Any
    result: Any

    @property
    def finish_reason(self) -> str | None:
        """``"stop"``, ``"length"``, ``"content_filter"``, ... as the provider reported it (None if unknown)."""
        responses = getattr(self.result, "responses", ()) or ()
        if responses:
            return getattr(responses[0], "finish_reason", None)
        choices = value(getattr(self.result, "raw", None), "choices", None) or []
        return value(choices[0], "finish_reason", None) if choices else None

    @property
    def max_tokens(self) -> int | None:
        """The output-token limit the call was made with (None: none set)."""
        legacy = getattr(self.call, "legacy", None) or {}
        limit = legacy.get("max_tokens") or legacy.get("max_completion_tokens")
        return int(limit) if limit else None

    @property
    def from_cache(self) -> bool:
        return bool(getattr(self.result, "cache_hit", False))

    def evict(self) -> None:
        """Remove this call's answer from DSPy's response cache (memory and disk), if it was cached."""
        if not getattr(self.call, "cache", False):
            return
        cache = dspy.cache
        try:
            key = cache.cache_key(self.call.key(self.lm, False), execution.IGNORED_CACHE_KEYS)
        except Exception:  # DSPy could not key it either, so it never stored it
            return
        with cache._lock:
            cache.memory_cache.pop(key, None)
        disk = cache.disk_cache
        if hasattr(disk, "delete"):
            disk.delete(key)
        else:
            disk.pop(key, None)


def _recording(finalize: Any) -> Any:
    def finalize_and_record(lm: Any, call: Any, result: Any) -> Any:
        seen = _SEEN.get()
        if seen is not None:
            seen.append(SeenCall(lm, call, result))
        return finalize(lm, call, result)

    finalize_and_record.tribunal_records = True
    return finalize_and_record


def install() -> None:
    """Record completed calls inside :func:`watching` (idempotent)."""
    global _installed
    if _installed:
        return

    with _lock:
        if not getattr(execution.finalize, "tribunal_records", False):
            execution.finalize = _recording(execution.finalize)
        # DSPy warns that a rollout id "has no effect" at temperature 0: on sampling, true; but a re-ask's
        # rollout id does keep it out of the cache, and its request differs anyway (feedback, token limit).
        warnings.filterwarnings("ignore", message="rollout_id has no effect when temperature=0")
        _installed = True


def last_seen() -> SeenCall | None:
    """The last LM call completed inside the current :func:`watching` context (None outside one)."""
    seen = _SEEN.get()
    return seen[-1] if seen else None


@contextlib.contextmanager
def watching() -> Iterator[list[SeenCall]]:
    """The LM calls completed in this context (on this thread), in order."""
    install()
    seen: list[SeenCall] = []
    token = _SEEN.set(seen)
    try:
        yield seen
    finally:
        _SEEN.reset(token)

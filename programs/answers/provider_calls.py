"""What the provider said about each LM call made in a context: why it stopped, its token limit, its cache entry.

DSPy 3.4 turns a completion into plain output texts before the adapter sees it: the finish reason
(``"length"`` when the answer was cut at the token limit) stays on the call's result. tribunal's own
LM (:class:`~tribunal.programs.tribunal_lm.TribunalLM`) hands each completed call to :func:`record`
before DSPy finishes it, so the calls made inside :func:`watching` are recorded as :class:`SeenCall`
(nothing is recorded outside it, and no LM but tribunal's own is watched: DSPy itself is not
changed). A :class:`SeenCall` can evict its answer from DSPy's memory and disk cache: an answer that
turned out unusable must never be served again.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, Iterator
from dspy.clients.legacy_outputs import value

from tribunal.core.run_context import current, reset, setter
from tribunal.programs.response_cache import evict

_SET_SEEN = setter("seen_calls")


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
        """Make DSPy's response cache (memory and disk) miss this call's answer from now on, if it was cached."""
        evict(self.lm, self.call)


def record(lm: Any, call: Any, result: Any) -> None:
    """Note a completed call of ``lm`` (DSPy's prepared call and its result) inside :func:`watching`."""
    seen = current().seen_calls
    if seen is not None:
        seen.append(SeenCall(lm, call, result))


def last_seen() -> SeenCall | None:
    """The last LM call completed inside the current :func:`watching` context (None outside one)."""
    seen = current().seen_calls
    return seen[-1] if seen else None


@contextlib.contextmanager
def watching() -> Iterator[list[SeenCall]]:
    """The calls of tribunal's own LMs completed in this context (on this thread), in order."""
    seen: list[SeenCall] = []
    token = _SET_SEEN(seen)
    try:
        yield seen
    finally:
        reset(token)

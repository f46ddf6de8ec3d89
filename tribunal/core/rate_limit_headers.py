"""What a provider's response headers say of its rate limits (OpenAI's names, which most gateways copy).

- ``x-ratelimit-limit-requests`` / ``x-ratelimit-limit-tokens``: the requests (tokens) the provider
  allows per window; tribunal reads them as per minute (OpenAI's RPM and TPM). A provider whose
  window is a day (Groq's requests) then looks 1,440 times more generous than it is, which never
  slows a run; the ``remaining`` headers still stop it in time;
- ``x-ratelimit-remaining-requests`` / ``-tokens``: what is left of the window;
- ``x-ratelimit-reset-requests`` / ``-tokens``: when the window is whole again, as OpenAI writes a
  duration (``1s``, ``6m0s``, ``20ms``, ``1h2m3.5s``) or plain seconds;
- ``retry-after`` (seconds; ``retry-after-ms``) on a 429: how long to wait before the next request.

:func:`read_rate_limits` turns them into a :class:`RateLimitReport` (None for a header absent or
unreadable: a header is advice, never an error).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Iterable

_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ms|h|m|s)")
_UNIT_SECONDS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}


@dataclass(frozen=True)
class RateLimitReport:
    """The rate-limit headers of one response, read (None: not said)."""

    limit_requests: float | None = None
    remaining_requests: float | None = None
    reset_requests: float | None = None  # seconds from now
    limit_tokens: float | None = None
    remaining_tokens: float | None = None
    reset_tokens: float | None = None
    retry_after: float | None = None  # seconds from now (a 429's)

    @property
    def empty(self) -> bool:
        """Whether the response said nothing of its limits."""
        return all(value is None for value in self.__dict__.values())


def duration_seconds(text: str | None) -> float | None:
    """``"6m0s"`` -> 360.0, ``"20ms"`` -> 0.02, ``"1.5"`` -> 1.5; None for anything else."""
    if text is None:
        return None
    text = text.strip().lower()
    try:
        seconds = float(text)
    except ValueError:
        parts = _DURATION_PART.findall(text)
        if not parts or "".join(number + unit for number, unit in parts) != text:
            return None
        seconds = sum(float(number) * _UNIT_SECONDS[unit] for number, unit in parts)
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def _count(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0 else None


def read_rate_limits(headers: Iterable[tuple[str, str]], status: int | None = None) -> RateLimitReport:
    """The limits ``headers`` (name, value pairs, any case) report; ``retry-after`` is read on a 429 or 503."""
    seen: dict[str, str] = {}
    for name, value in headers or ():
        if isinstance(name, str) and isinstance(value, str):
            seen.setdefault(name.lower(), value)
    retry_after = None
    if status in (429, 503):
        retry_after = duration_seconds(seen.get("retry-after"))
        if retry_after is None and "retry-after-ms" in seen:
            milliseconds = _count(seen["retry-after-ms"])
            retry_after = None if milliseconds is None else milliseconds / 1000
    return RateLimitReport(
        limit_requests=_count(seen.get("x-ratelimit-limit-requests")),
        remaining_requests=_count(seen.get("x-ratelimit-remaining-requests")),
        reset_requests=duration_seconds(seen.get("x-ratelimit-reset-requests")),
        limit_tokens=_count(seen.get("x-ratelimit-limit-tokens")),
        remaining_tokens=_count(seen.get("x-ratelimit-remaining-tokens")),
        reset_tokens=duration_seconds(seen.get("x-ratelimit-reset-tokens")),
        retry_after=retry_after)

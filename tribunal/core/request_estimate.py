"""What a prepared LM request is before it is sent: its prompt text, about how many tokens that is,
and whether DSPy's response cache answers it (then nothing is sent).

The spending cap (:mod:`tribunal.runner.spending_cap`) prices a request by this estimate before it
goes out; the rate pacer (:mod:`tribunal.core.rate_pacer`) takes as many tokens from its
tokens-per-minute bucket, corrected once the answer reports its usage.
"""

from __future__ import annotations

import dspy
from dspy.clients.execution import IGNORED_CACHE_KEYS, PreparedCall


def prompt_token_estimate(text: str) -> int:
    """Tokens of ``text`` at most as tokenizers split it, about: 4 ASCII characters a token, 1 other a token."""
    ascii_chars = sum(1 for ch in text if ord(ch) < 128)
    return (ascii_chars + 3) // 4 + (len(text) - ascii_chars) + 8  # + the chat template's few tokens


def prompt_text(call: PreparedCall) -> str:
    """The text of a prepared DSPy call's messages (or its prompt), joined by newlines."""
    messages = getattr(call, "messages", None) or (getattr(call, "legacy", None) or {}).get("messages")
    if not messages:
        return str(getattr(call, "prompt", "") or "")
    parts = []
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else message
        parts.append(content if isinstance(content, str) else str(content))
    return "\n".join(parts)


def answered_by_cache(lm: dspy.BaseLM, call: PreparedCall) -> bool:
    """Whether DSPy's response cache holds this request's answer (then it costs nothing and is not sent)."""
    if not getattr(call, "cache", False):
        return False
    try:
        return dspy.cache.get(call.key(lm, False), IGNORED_CACHE_KEYS) is not None
    except Exception:  # noqa: BLE001 - a request DSPy cannot key is not cached
        return False

"""Counting a prompt's tokens as the model will: its own tokenizer where tribunal knows it offline.

Counters, most exact first (:func:`counter_for` picks the first that applies):

- an OpenAI model LiteLLM's bundled price table knows (``openai/gpt-4o-mini``): LiteLLM's
  ``token_counter``, i.e. tiktoken with the vocabulary LiteLLM ships (offline), chat framing included;
- a local GGUF model (``local``, ``local/PATH.gguf``) when llama-cpp-python is installed: the GGUF's
  own tokenizer (vocabulary only, no weights loaded), plus the chat template's few tokens per message;
- anything else: 4 characters a token, and the count says it is an estimate (``exact`` False).
  LiteLLM's counter is not used there: for other models it fetches a tokenizer from the network.
"""

from __future__ import annotations

import functools
import importlib.util
from dataclasses import dataclass
from typing import Any, Callable

from tribunal.programs.local_models import gguf_path, is_local
from tribunal.programs.pricing import model_prices

Messages = list[dict[str, str]]
CHARS_PER_TOKEN = 4
MESSAGE_FRAMING = 4  # tokens a chat template adds around each message (role markers), as OpenAI counts them


@dataclass(frozen=True)
class TokenCounter:
    """Counts the tokens of chat messages and of a plain text for one model."""

    name: str
    """How it counts, for the report: ``tiktoken (LiteLLM)``, ``GGUF tokenizer``, ``chars/4``."""
    exact: bool
    count_text: Callable[[str], int]
    count_messages: Callable[[Messages], int]


def _chars(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


def approximate() -> TokenCounter:
    """4 characters a token (an estimate, flagged as one)."""
    return TokenCounter("chars/4 (estimate)", False, _chars,
                        lambda messages: sum(_chars(m["content"]) + MESSAGE_FRAMING for m in messages))


def _is_openai(model: str) -> bool:
    entry = model_prices(model)
    return entry is not None and str(entry.get("litellm_provider", "")) in ("openai", "text-completion-openai")


def _litellm_counter(model: str) -> TokenCounter:
    import litellm  # heavy: litellm (with LITELLM_LOCAL_MODEL_COST_MAP, offline)

    bare = model.partition("/")[2] or model
    return TokenCounter("tiktoken (LiteLLM)", True, lambda text: litellm.token_counter(model=bare, text=text),
                        lambda messages: litellm.token_counter(model=bare, messages=messages))


@functools.lru_cache(maxsize=4)
def _gguf_counter(path: str) -> TokenCounter:
    import llama_cpp  # optional extra: llama-cpp-python (tribunal[local])

    vocab = llama_cpp.Llama(model_path=path, vocab_only=True, verbose=False)

    def text(value: str) -> int:
        return len(vocab.tokenize(value.encode("utf-8"), add_bos=False, special=False))

    return TokenCounter("GGUF tokenizer", True, text,
                        lambda messages: sum(text(m["content"]) + MESSAGE_FRAMING for m in messages))


def counter_for(model: str) -> TokenCounter:
    """The most exact counter tribunal has offline for ``model`` (see the module docstring)."""
    if _is_openai(model) and importlib.util.find_spec("litellm") is not None:
        return _litellm_counter(model)
    if is_local(model) and importlib.util.find_spec("llama_cpp") is not None:
        try:
            return _gguf_counter(str(gguf_path(model)))
        except Exception:  # noqa: BLE001 - no readable GGUF (e.g. the bundled model not installed): approximate
            return approximate()
    return approximate()


def request_messages(request: Any) -> Messages:
    """An lm15 request's system prompt and messages as OpenAI-style ``{"role", "content"}`` dicts."""
    system = request.system if isinstance(request.system, str) else \
        "".join(getattr(p, "text", "") or "" for p in request.system or ())
    messages = [{"role": "system", "content": system}] if system else []
    for message in request.messages:
        text = "".join(getattr(p, "text", "") or "" for p in message.parts)
        messages.append({"role": str(message.role), "content": text})
    return messages

"""Memoise two pure DSPy lookups that dominate the client's CPU per LM call.

Measured with cProfile on the M-MAD runner (dspy 3.4.1, 2 cores), before this module each call
spent about 10 ms of CPU on the client, which capped a 2-core runner far below its concurrency:

- **model metadata** (``dspy.clients.model_metadata.model_info``): looked up three times per call
  (capabilities once, cost estimation twice); for a name missing from DSPy's bundled map — every
  vLLM/Ollama model served as ``openai/<name>`` — each lookup scans the whole map (~1.5 ms).
- **output-field JSON schemas** (``dspy.adapters.utils._get_json_schema``): rebuilt with a fresh
  pydantic ``TypeAdapter`` for every call that has a typed (pydantic) output field (~1.2 ms).
- **value serialisation** (``dspy.adapters.utils.serialize_for_json``): builds a new pydantic
  ``TypeAdapter(type(value))`` for every field value it formats, about 20 per M-MAD call (~40% of
  the remaining client CPU); the adapter for a type is now built once and reused.

The first two are pure functions of their arguments once the metadata map is loaded (it is loaded once per
process and never changes), so their answers are remembered; callers get deep copies, exactly as
from the originals. ``install()`` is called when tribunal builds an LM, never at import.
"""

from __future__ import annotations

import copy
import functools
import threading
from typing import Any, Callable

_lock = threading.Lock()
_installed = False


def memoise_model_info(original: Callable[..., dict]) -> Callable[..., dict]:
    """A drop-in ``model_info(provider, model, *, namespaces=None)`` that remembers answers."""

    @functools.lru_cache(maxsize=1024)
    def cached(provider: Any, model: Any, namespaces: tuple | None) -> dict:
        return original(provider, model, namespaces=namespaces)

    @functools.wraps(original)
    def model_info(provider: Any, model: Any, *, namespaces: Any = None) -> dict:
        key = tuple(namespaces) if namespaces is not None else None
        return copy.deepcopy(cached(provider, model, key))

    return model_info


def memoise_json_schema(original: Callable[[Any], dict]) -> Callable[[Any], dict]:
    """A drop-in ``_get_json_schema(field_type)`` that remembers the schema of each type."""
    cache: dict[Any, dict] = {}

    @functools.wraps(original)
    def get_json_schema(field_type: Any) -> dict:
        try:
            schema = cache.get(field_type)
        except TypeError:  # an unhashable annotation: nothing to remember it by
            return original(field_type)
        if schema is None:
            schema = cache.setdefault(field_type, original(field_type))
        return copy.deepcopy(schema)

    return get_json_schema


def reuse_type_adapters(original: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """A drop-in ``serialize_for_json(value)`` that builds one pydantic TypeAdapter per type."""
    from pydantic import TypeAdapter  # heavy: pydantic

    adapters: dict[type, Any] = {}

    @functools.wraps(original)
    def serialize_for_json(value: Any) -> Any:
        kind = type(value)
        try:
            adapter = adapters.get(kind)
            if adapter is None:
                adapter = adapters.setdefault(kind, TypeAdapter(kind))
            return adapter.dump_python(value, mode="json", fallback=str)
        except Exception:  # the original's contract: anything pydantic cannot handle becomes str(value)
            return str(value)

    return serialize_for_json


def _swap(modules: tuple, name: str, original: Any, replacement: Any) -> None:
    for module in modules:
        if getattr(module, name, None) is original:
            setattr(module, name, replacement)


def install() -> None:
    """Swap the faster versions into the DSPy modules that call them (idempotent)."""
    global _installed
    with _lock:
        if _installed:
            return
        from dspy.adapters import base, json_adapter, xml_adapter  # heavy: dspy, pydantic
        from dspy.adapters import utils as adapter_utils  # heavy: dspy, pydantic
        from dspy.clients import capabilities, costs, model_metadata  # heavy: dspy, pydantic
        from dspy.primitives import repl_types  # heavy: dspy, pydantic

        info = model_metadata.model_info
        _swap((capabilities, costs), "model_info", info, memoise_model_info(info))
        adapter_utils._get_json_schema = memoise_json_schema(adapter_utils._get_json_schema)
        serialize = adapter_utils.serialize_for_json
        _swap((adapter_utils, base, json_adapter, xml_adapter, repl_types), "serialize_for_json", serialize,
              reuse_type_adapters(serialize))
        _installed = True

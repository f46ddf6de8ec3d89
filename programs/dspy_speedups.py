"""The same prompt text for less CPU: two pure steps of DSPy's formatting, done once, in tribunal's own adapters.

Measured with cProfile on the M-MAD runner (dspy 3.4.1), two steps of DSPy's prompt formatting
dominate the client's CPU per call:

- **value serialisation** (``dspy.adapters.utils.serialize_for_json``): builds a new pydantic
  ``TypeAdapter(type(value))`` for every field value it formats (about 80 us each, about 20 per
  M-MAD call). :func:`field_text` formats a value exactly as DSPy's ``format_field_value`` does,
  with one adapter per type, built once;
- **the field structure** (``format_field_structure``): rebuilds a JSON schema with a fresh pydantic
  ``TypeAdapter`` for every typed (pydantic) output field of every call (about 2 ms each).
  :class:`FieldStructures` remembers the text per adapter class and signature; so it does the
  whole system message (field descriptions, structure and instructions: 30-60 us a call).

Both are used only by tribunal's adapters (:mod:`tribunal.programs.answers.adapter`): DSPy's own
functions are called or left alone, never replaced, so any other adapter formats as DSPy does.
A third speed-up of earlier versions (memoising DSPy's model-metadata lookup) is gone: it could
only be had by replacing DSPy's function, and tribunal's server LMs never call it (a custom engine
declares its capabilities and has no pricing provider).
"""

from __future__ import annotations

import json
import threading
import weakref
from typing import Any, Callable

from pydantic import TypeAdapter

_adapters: dict[type, TypeAdapter] = {}


def to_json(value: Any) -> Any:
    """``value`` as JSON-ready data, as DSPy's ``serialize_for_json`` gives it (one TypeAdapter per type)."""
    kind = type(value)
    try:
        adapter = _adapters.get(kind)
        if adapter is None:
            adapter = _adapters.setdefault(kind, TypeAdapter(kind))
        return adapter.dump_python(value, mode="json", fallback=str)
    except Exception:  # noqa: BLE001 - DSPy's contract: anything pydantic cannot handle becomes str(value)
        return str(value)


def field_text(field_info: Any, value: Any) -> str:
    """A field's value in the prompt, exactly as DSPy's ``format_field_value(field_info, value)`` writes it."""
    if isinstance(value, list) and field_info.annotation is str:
        from dspy.adapters.utils import format_field_value  # heavy: dspy

        return format_field_value(field_info=field_info, value=value)  # a numbered list: DSPy's own
    data = to_json(value)
    return json.dumps(data, ensure_ascii=False) if isinstance(data, (dict, list)) else str(data)


class FieldStructures:
    """A text of each adapter class that depends only on the signature (``format_field_structure``, the
    system message), computed once per signature.

    A signature is a class that DSPy never changes in place (``with_instructions`` and the like make
    a new one); its fields and instructions are checked anyway, so a signature edited in place is
    formatted afresh."""

    def __init__(self) -> None:
        self._texts: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def get(self, adapter_class: type, signature: Any, compute: Callable[[], str]) -> str:
        """The remembered text, else ``compute()`` (remembered for next time)."""
        fields = (signature.instructions, *((name, id(info)) for name, info in signature.fields.items()))
        with self._lock:
            known = self._texts.get(signature, {}).get(adapter_class)
        if known is not None and known[0] == fields:
            return known[1]
        text = compute()
        with self._lock:
            self._texts.setdefault(signature, {})[adapter_class] = (fields, text)
        return text

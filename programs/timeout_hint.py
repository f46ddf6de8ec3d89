"""A read timeout names the option that raises it: ``--timeout S``, not lm15's internal ``Timeouts(read=...)``.

DSPy's HTTP client (lm15) ends a read-timeout message with "raise it with Timeouts(read=...)", an
API a tribunal user never sees; the message becomes the unscored reason of every item whose calls
timed out. :func:`install` makes the message say which of tribunal's settings to change instead.
Called when tribunal builds an LM, never at import.
"""

from __future__ import annotations

import threading
import importlib

TRANSPORT_MODULES = ("_sync", "_async", "_fetch")  # the lm15 transports that format the message
_lock = threading.Lock()


def read_timeout_hint(seconds: float) -> str:
    """The tail of a read-timeout message, in tribunal's terms."""
    return (f"no answer for {seconds:g} s; this is tribunal's LM timeout, not a server failure: raise it with "
            "--timeout S (or timeout under [lm] in a --config file) if the model needs longer")


def install() -> None:
    """Point lm15's transports at :func:`read_timeout_hint` (idempotent)."""
    with _lock:
        for name in TRANSPORT_MODULES:
            module = importlib.import_module(f"dspy._vendor.lm15.transports.{name}")
            if hasattr(module, "read_timeout_hint"):
                module.read_timeout_hint = read_timeout_hint

"""DSPy's response cache in tests: off, or in a folder of the test's own; the session's cache put back after.

``dspy.cache`` is built lazily, from ``DSPY_CACHEDIR`` as it is then; reading it here would fix
the whole test session on that folder. So a cache not yet built is left unbuilt afterwards, and
one already built is put back.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Iterator


@contextlib.contextmanager
def swapped_cache(folder: Path | None) -> Iterator[None]:
    """DSPy's cache replaced while inside: none at all (``folder=None``), or disk + memory in ``folder``."""
    import dspy
    from dspy.clients.cache import Cache

    built = "cache" in vars(dspy)
    saved = vars(dspy).get("cache")
    replacement = (Cache(enable_disk_cache=False, enable_memory_cache=False, disk_cache_dir=None) if folder is None
                   else Cache(True, True, str(folder), 10**8))
    with dspy._cache_lock:
        dspy.cache = replacement
    try:
        yield
    finally:
        with dspy._cache_lock:
            if built:
                dspy.cache = saved
            else:
                vars(dspy).pop("cache", None)


def dspy_cache_off() -> contextlib.AbstractContextManager:
    """No DSPy cache while an LM built with ``cache=True`` (the CLI's) is counted."""
    return swapped_cache(None)


def private_dspy_cache(folder: Path) -> contextlib.AbstractContextManager:
    """DSPy's cache on, in ``folder`` only: a test that checks cache hits sees its own requests alone."""
    return swapped_cache(folder)

"""Reproducibility signatures in the style of sacrebleu: one string that pins every setting.

    prog:mmad|strategy:consensus|rounds:3|lm:openai/gpt-4o|data:wmt23/zh-en@3f2a9c1b|v:0.1.0

Field order is the caller's; values are sanitised so ``|`` and ``:`` stay separators.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Callable, Iterable, Mapping

from tribunal import __version__


def _clean(value: object) -> str:
    text = ",".join(map(str, value)) if isinstance(value, (list, tuple, set, frozenset)) else str(value)
    return text.replace("|", "/").replace("\n", " ")


def signature(fields: Mapping[str, object]) -> str:
    """Join ``key:value`` pairs with ``|`` and append the tribunal version as ``v:``."""
    parts = [f"{key}:{_clean(value)}" for key, value in fields.items() if value is not None]
    return "|".join(parts + [f"v:{__version__}"])


def files_hash(paths: Iterable[str | Path], root: str | Path | None = None, length: int = 12,
               digest_of: Callable[[Path], bytes] | None = None) -> str:
    """A short sha256 over the names and contents of ``paths``.

    Names are taken relative to ``root`` when given, else the last two path parts (``en-de/X.seg.score``)
    so that the same data hashes alike wherever it lives. The order of ``paths`` does not matter.
    ``digest_of`` may supply a file's sha256 digest (e.g. a score cache that knows it unread).
    """
    digest = hashlib.sha256()
    for path in sorted(Path(p) for p in paths):
        name = path.relative_to(root) if root is not None else Path(*path.parts[-2:])
        digest.update(str(name).encode() + b"\0")
        if digest_of is not None:
            digest.update(digest_of(path))
            continue
        with path.open("rb") as handle:
            digest.update(hashlib.file_digest(handle, "sha256").digest())
    return digest.hexdigest()[:length]


def text_hash(text: str, length: int = 12) -> str:
    """A short sha256 of a string (for in-memory data slices)."""
    return hashlib.sha256(text.encode()).hexdigest()[:length]

"""Reproducibility signatures in the style of sacrebleu: one string that pins every setting.

    prog:mmad|strategy:consensus|rounds:3|lm:openai/gpt-4o|data:wmt23/zh-en@3f2a9c1b|v:0.1.0

A signature is a typed object (:class:`Signature`; one subclass per task, in
:mod:`tribunal.eval.tracking.run_signatures`): its fields, in their declared order, render as ``key:value``
pairs joined by ``|``, a field that is None is left out, and the tribunal version closes it as ``v:``.
In a value, ``\\``, ``|``, ``:`` and a line break are escaped with a backslash (``\\\\``, ``\\|``, ``\\:``,
``\\n``), so ``|`` and ``:`` stay separators and :meth:`Signature.parse` reads the string back; a
tuple value is joined with ``,`` (a ``,`` inside one of its elements is escaped as ``\\,``).

A field of type ``dict[str, str]`` is *open*: its items are written in its place as fields of their own
(``preset:paper|rounds:3``), so a part of the run (a judge's settings) brings the fields it needs without
the signature class naming them; the parser reads a key the class does not know into the open field
whose place it is in. An open field's key may not be one of the class's own fields.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from types import UnionType
from typing import Any, Callable, Iterable, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, model_validator

from tribunal import __version__

VERSION = __version__
"""The tribunal version every signature ends with (``v:``)."""

_ESCAPES = {"\\": "\\\\", "|": "\\|", ":": "\\:", "\n": "\\n"}
_UNESCAPES = {"\\": "\\", "|": "|", ":": ":", "n": "\n", ",": ","}


def escape(text: str, also: str = "") -> str:
    """``text`` with the signature's separators (and any character of ``also``) escaped by a backslash."""
    return "".join(_ESCAPES.get(ch) or (f"\\{ch}" if ch in also else ch) for ch in text)


def split_unescaped(text: str, separator: str) -> list[str]:
    """``text`` split at each ``separator`` not escaped by a backslash (the escapes kept)."""
    parts, current, k = [], [], 0
    while k < len(text):
        ch = text[k]
        if ch == "\\" and k + 1 < len(text):
            current.append(text[k:k + 2])
            k += 2
            continue
        if ch == separator:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
        k += 1
    return parts + ["".join(current)]


def unescape(text: str) -> str:
    """The inverse of :func:`escape`; a backslash before any other character is an error."""
    out, k = [], 0
    while k < len(text):
        if text[k] == "\\":
            if k + 1 >= len(text) or text[k + 1] not in _UNESCAPES:
                raise ValueError(f"bad escape in signature value {text!r}")
            out.append(_UNESCAPES[text[k + 1]])
            k += 2
        else:
            out.append(text[k])
            k += 1
    return "".join(out)


def _render(value: object) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(escape(str(v), also=",") for v in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return escape(str(value))


def _is_open(annotation: Any) -> bool:
    """Whether a field is open (``dict[str, str]``: its items are written as fields of their own)."""
    return get_origin(annotation) is dict


def _is_tuple(annotation: Any) -> bool:
    if get_origin(annotation) in (Union, UnionType):
        return any(_is_tuple(arg) for arg in get_args(annotation))
    return get_origin(annotation) is tuple


class Signature(BaseModel):
    """A run's signature: fixed fields in a fixed order (a subclass per task), ``str()`` renders it.

    A subclass declares its fields in the order they are written and ends with ``v: str = VERSION``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        if list(cls.model_fields)[-1:] != ["v"]:
            raise TypeError(f"{cls.__name__}: a signature's last field is v (the tribunal version)")

    @model_validator(mode="after")
    def _open_keys_are_new(self) -> "Signature":
        fields = type(self).model_fields
        for name, field in fields.items():
            if _is_open(field.annotation):
                for key in getattr(self, name):
                    if key in fields or not key.isidentifier():
                        raise ValueError(f"{name}: {key!r} cannot be a field of its own here (a field of the "
                                         "signature, or not a plain name)")
        return self

    def __str__(self) -> str:
        values = self.model_dump()
        parts: list[str] = []
        for key, field in type(self).model_fields.items():
            if _is_open(field.annotation):
                parts += [f"{k}:{_render(v)}" for k, v in values[key].items()]
            elif values[key] is not None:
                parts.append(f"{key}:{_render(values[key])}")
        return "|".join(parts)

    @classmethod
    def parse(cls, text: str) -> "Signature":
        """The signature a string rendered by ``str()`` holds (a key it does not know, or out of order, is an error)."""
        order = list(cls.model_fields)
        values: dict[str, Any] = {}
        place = -1  # the place in ``order`` of the last field read
        for part in split_unescaped(text, "|"):
            key, sep, raw = part.partition(":")
            field = key if key in cls.model_fields else cls._open_field(order, place)
            if not sep or field is None:
                raise ValueError(f"{cls.__name__}: unknown field {key!r} in {text!r}")
            at = order.index(field)
            if at < place or (at == place and field == key):
                raise ValueError(f"{cls.__name__}: field {key!r} out of order in {text!r}")
            place = at
            if field != key:
                values.setdefault(field, {})[key] = unescape(raw)
            elif _is_tuple(cls.model_fields[key].annotation):
                values[key] = tuple(unescape(v) for v in split_unescaped(raw, ",")) if raw else ()
            else:
                values[key] = unescape(raw)
        return cls.model_validate(values)

    @classmethod
    def _open_field(cls, order: list[str], place: int) -> str | None:
        """The open field an unknown key read after ``order[place]`` belongs to: the first at or after that
        place (None: none, the key is unknown)."""
        return next((name for name in order[max(place, 0):] if _is_open(cls.model_fields[name].annotation)), None)


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


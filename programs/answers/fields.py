"""Find a signature's output fields in an answer written the way chat models write.

Two layouts are read, whichever format was asked for:

- **chat**: ``[[ ## field ## ]]`` headers (DSPy's ChatAdapter). Tolerated: a preamble before the
  first header, markdown around a header (``**[[ ## errors ## ]]**``, ``### [[ ## errors ## ]]``), other
  spacing or case inside it, code fences around the whole answer or around one value, a missing
  ``[[ ## completed ## ]]`` marker and anything after it.
- **json**: one JSON object (DSPy's JSONAdapter), possibly fenced, after a preamble or before a
  closing remark, with keys in another case;
- and, only when neither finds every field, **labelled lines** (``Verdict: same``) or markdown
  headings (``## Errors``) naming the fields.

The result maps output-field names to raw values (text or decoded JSON) for
:func:`tribunal.programs.answers.coerce.coerce`; nothing here decides a value's type.
"""

from __future__ import annotations

import re
from typing import Any

from tribunal.programs.answers.coerce import json_at, normalise_label

_HEADER = re.compile(r"^[\s>#*_`]*\[\[\s*#+\s*([A-Za-z_][\w ]*?)\s*#+\s*\]\][\s*_`:]*(.*)$")
_FENCE = re.compile(r"^\s*```[\w+-]*\s*$")


def _strip_fences(text: str) -> str:
    """Fence lines (```json, ```) removed wherever they stand on a line of their own."""
    return "\n".join(line for line in text.splitlines() if not _FENCE.match(line))


def chat_sections(completion: str, names: list[str]) -> dict[str, str]:
    """``{field: text}`` from ``[[ ## field ## ]]`` sections; the first section of a field wins."""
    wanted = {normalise_label(name): name for name in [*names, "completed"]}
    sections: list[tuple[str | None, list[str]]] = [(None, [])]
    for line in _strip_fences(completion).splitlines():
        match = _HEADER.match(line)
        name = wanted.get(normalise_label(match.group(1))) if match else None
        if name is not None:
            sections.append((name, [match.group(2)] if match.group(2).strip() else []))
        else:
            sections[-1][1].append(line)
    found: dict[str, str] = {}
    for name, lines in sections:
        if name is not None and name != "completed" and name not in found:
            found[name] = "\n".join(lines).strip()
    return found


def json_fields(completion: str, names: list[str]) -> dict[str, Any]:
    """``{field: value}`` from the first JSON object (at any ``{``) naming at least one output field."""
    text = _strip_fences(completion)
    by_label = {normalise_label(name): name for name in names}
    start = text.find("{")
    while start >= 0:
        found = json_at(text[start:])
        fields: dict[str, Any] = {}
        for key, value in (found.items() if isinstance(found, dict) else ()):
            name = by_label.get(normalise_label(str(key)))
            if name is not None and name not in fields:
                fields[name] = value
        if fields:
            return fields
        start = text.find("{", start + 1)
    return {}


def labelled_lines(completion: str, names: list[str]) -> dict[str, str]:
    """``{field: text}`` from lines that start with a field's name and a colon (``**Verdict:** same``).

    The last resort, used only when it finds every field: free text may start a line with a word
    that is also a field name.
    """
    words = {name: r"[\s_\-]+".join(map(re.escape, name.split("_"))) for name in names}
    alternatives = "|".join(words.values())
    # "Verdict: same", "**Errors:** [...]", or a markdown heading alone on its line ("## Errors").
    pattern = re.compile(r"^[\s>#*_`\-]*(" + alternatives + r")[\s*_`]*:[\s*_`]*(.*)$"
                         r"|^\s*#{1,6}\s*[*_`]*(" + alternatives + r")[*_`:\s]*()$", re.IGNORECASE)
    by_label = {normalise_label(name): name for name in names}
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in _strip_fences(completion).splitlines():
        match = pattern.match(line)
        label, rest = (match.group(1) or match.group(3), match.group(2) or "") if match else (None, "")
        name = by_label.get(normalise_label(label)) if label else None
        if name is not None and name not in found:
            current = found[name] = [rest] if rest.strip() else []
        elif current is not None:
            current.append(line)
    return {name: "\n".join(lines).strip() for name, lines in found.items()}


def answer_fields(completion: str, names: list[str], prefer: str = "chat") -> dict[str, Any]:
    """The output fields found in ``completion``, read in the ``prefer``-red layout first."""
    readers = [chat_sections, json_fields] if prefer == "chat" else [json_fields, chat_sections]
    readers.append(labelled_lines)
    best: dict[str, Any] = {}
    for reader in readers:
        fields = reader(completion, names)
        if len(fields) == len(names):
            return fields
        if len(fields) > len(best):
            best = fields
    return best

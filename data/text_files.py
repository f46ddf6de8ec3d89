"""Line-aligned text files of the mt-metrics-eval layout (sources, references, outputs, documents).

Newer sets may hold sources, references and outputs as JSONL instead (one JSON object per segment).
"""

from __future__ import annotations

import json
from pathlib import Path

from tribunal.data.errors import DataFormatError


def read_lines(path: str | Path, expected: int | None = None) -> list[str]:
    """Read a one-segment-per-line file; check its length against ``expected`` if given."""
    path = Path(path)
    if not path.is_file():
        raise DataFormatError(path, None, "file not found")
    lines = split_lines(path, path.read_bytes())
    if expected is not None and len(lines) != expected:
        raise DataFormatError(
            path, len(lines), f"has {len(lines)} lines but the source has {expected}"
        )
    return lines


def split_lines(path: str | Path, content: bytes) -> list[str]:
    """The lines of a file's bytes, as text mode reads them: UTF-8, universal newlines (``\\r\\n`` and ``\\r``
    end lines too); a final newline ends the last line, it opens no empty one."""
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as err:
        raise DataFormatError(path, content[: err.start].count(b"\n") + 1, "not valid UTF-8") from None
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def read_documents(path: str | Path, expected: int | None = None) -> list[tuple[str, str]]:
    """Read a ``.docs`` file: one ``DOMAIN\\tDOC_ID`` line per segment."""
    rows = []
    for number, line in enumerate(read_lines(path, expected), 1):
        parts = line.split("\t")
        if len(parts) != 2:
            raise DataFormatError(
                path, number, f"expected 2 tab-separated columns (domain, doc), found {len(parts)}"
            )
        rows.append((parts[0], parts[1]))
    return rows


def read_jsonl_field(path: str | Path, field: str, expected: int | None = None) -> list[str]:
    """One ``field`` per line of a JSONL file (newer mt-metrics-eval sets: ``source`` / ``target`` /
    ``hypothesis``); a JSON ``null`` (a missing translation) reads as the empty string."""
    path = Path(path)
    values = []
    for number, line in enumerate(read_lines(path), 1):
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            raise DataFormatError(path, number, f"not a JSON line: {err.msg}") from None
        if not isinstance(record, dict) or field not in record:
            raise DataFormatError(path, number, f"expected a JSON object with a {field!r} field")
        value = record[field]
        if value is not None and not isinstance(value, str):
            raise DataFormatError(path, number, f"{field!r} must be a string or null")
        values.append(value or "")
    if expected is not None and len(values) != expected:
        raise DataFormatError(path, len(values), f"has {len(values)} lines but the source has {expected}")
    return values


def read_segments(path: str | Path, field: str, expected: int | None = None) -> list[str]:
    """Segments of a ``.txt`` (one per line) or ``.jsonl`` (``field`` of each line) file."""
    path = Path(path)
    if path.suffix == ".jsonl":
        return read_jsonl_field(path, field, expected)
    return read_lines(path, expected)

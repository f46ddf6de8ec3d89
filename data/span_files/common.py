"""What every span-file reader shares: JSON lines with file:line errors, checked offsets, atomic writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

from tribunal.data.atomic import write_text_atomically
from tribunal.data.errors import DataFormatError
from tribunal.data.text_files import read_lines
from tribunal.core.spans import SIDES, SegmentSpans, Span, span


def json_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each non-blank line; a line that is not a JSON object is an error."""
    for number, line in enumerate(read_lines(path), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as err:
            raise DataFormatError(path, number, f"not JSON: {err.msg}") from None
        if not isinstance(value, dict):
            raise DataFormatError(path, number, "expected a JSON object")
        yield number, value


def checked_span(path: Path, number: int, start: Any, end: Any, severity: Any = "", side: Any = "target") -> Span:
    """A span from raw fields, or a DataFormatError naming the line."""
    if isinstance(start, bool) or isinstance(end, bool) or not (isinstance(start, int) and isinstance(end, int)):
        raise DataFormatError(path, number, f"span offsets must be integers (start={start!r}, end={end!r})")
    if not 0 <= start <= end:
        raise DataFormatError(path, number, f"bad span offsets start={start} end={end} (need 0 <= start <= end)")
    if side not in SIDES:
        raise DataFormatError(path, number, f"unknown side {side!r} (expected target or source)")
    return span(start, end, severity or "", side)


def add_segment(path: Path, number: int, table: dict[str, SegmentSpans], segment: SegmentSpans) -> None:
    """Add a segment; the same id twice is an error (which line was meant?)."""
    if segment.id in table:
        raise DataFormatError(path, number, f"segment id {segment.id!r} appears twice")
    table[segment.id] = segment


def write_lines(path: Path, lines: list[str]) -> Path:
    return write_text_atomically(path, "".join(line + "\n" for line in lines))


def split_id(segment_id: str, path: Path) -> tuple[str, str]:
    """``"SYSTEM|SEGMENT"`` -> (system, segment): the id every system-and-segment format uses."""
    system, sep, seg = segment_id.rpartition("|")
    if not sep:
        raise DataFormatError(path, None, f"segment id {segment_id!r} is not SYSTEM|SEGMENT (needed by this format)")
    return system, seg

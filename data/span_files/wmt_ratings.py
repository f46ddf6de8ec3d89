"""WMT MQM rating files in the mt-metrics-eval layout (``human-scores/LP.mqm.raterN.seg.rating``):
one line per system and segment, ``SYSTEM\\t{"errors": [...]}`` or ``SYSTEM\\tNone`` for an unrated cell.

Reading goes through :func:`tribunal.data.ratings.read_ratings` and the parsed-data cache
(:class:`~tribunal.data.score_cache.ScoreCache`: a file is parsed once until it changes); segment ids are
``SYSTEM|INDEX`` (0-based line index within the system's block); unrated cells are left out.
Writing fills a system's missing indices with ``None`` (a category is required by the layout; tribunal
writes ``"unknown"``).
"""

from __future__ import annotations

import json
from pathlib import Path

from tribunal.data.errors import DataFormatError
from tribunal.data.ratings import read_ratings
from tribunal.data.span_files.common import split_id, write_lines
from tribunal.core.spans import SegmentSpans, span

NAME = "wmt-rating"


def read(path: Path) -> dict[str, SegmentSpans]:
    from tribunal.data.score_cache import ScoreCache  # heavy: pulls in numpy

    table: dict[str, SegmentSpans] = {}
    for system, block in read_ratings(path, cache=ScoreCache.default()).items():
        for index, rating in enumerate(block):
            if rating is None:
                continue
            spans = tuple(span(e.start, e.end, e.severity, "source" if e.is_source_error else "target") for e in rating)
            table[f"{system}|{index}"] = SegmentSpans(f"{system}|{index}", spans)
    return table


def write(path: Path, segments: list[SegmentSpans]) -> Path:
    by_system: dict[str, dict[int, SegmentSpans]] = {}
    for seg in segments:
        system, index = split_id(seg.id, path)
        if not index.isdigit():
            raise DataFormatError(path, None, f"segment id {seg.id!r}: a rating file needs SYSTEM|INDEX")
        by_system.setdefault(system, {})[int(index)] = seg
    lines = []
    for system, cells in by_system.items():
        for index in range(max(cells) + 1):
            seg = cells.get(index)
            if seg is None:
                lines.append(f"{system}\tNone")
                continue
            errors = [{"start": s.start, "end": s.end, "category": "unknown", "severity": s.severity,
                       "is_source_error": s.side == "source"} for s in seg.spans]
            lines.append(f"{system}\t" + json.dumps({"errors": errors}))
    return write_lines(path, lines)


def sniff(path: Path, first_line: str) -> bool:
    _, sep, payload = first_line.partition("\t")
    return bool(sep) and (payload == "None" or payload.startswith('{"errors"'))

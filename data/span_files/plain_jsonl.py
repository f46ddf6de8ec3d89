"""tribunal's plain span form: one segment per line,
``{"id": "...", "spans": [{"start": 3, "end": 9, "severity": "major", "side": "target"}]}``.

Half-open character offsets; ``severity`` and ``side`` are optional (default "" and ``target``);
``target`` / ``source`` texts may be given and are kept.
"""

from __future__ import annotations

import json
from pathlib import Path

from tribunal.data.errors import DataFormatError
from tribunal.data.span_files.common import add_segment, checked_span, json_lines, write_lines
from tribunal.core.spans import SegmentSpans

NAME = "jsonl"


def read(path: Path) -> dict[str, SegmentSpans]:
    table: dict[str, SegmentSpans] = {}
    for number, obj in json_lines(path):
        if "id" not in obj or not isinstance(obj.get("spans"), list):
            raise DataFormatError(path, number, 'each line needs "id" and a "spans" list')
        spans = []
        for s in obj["spans"]:
            if not isinstance(s, dict) or "start" not in s or "end" not in s:
                raise DataFormatError(path, number, 'each span needs "start" and "end"')
            spans.append(checked_span(path, number, s["start"], s["end"], s.get("severity", ""), s.get("side", "target")))
        add_segment(path, number, table, SegmentSpans(str(obj["id"]), tuple(spans), obj.get("target"), obj.get("source")))
    return table


def write(path: Path, segments: list[SegmentSpans]) -> Path:
    lines = []
    for seg in segments:
        record = {"id": seg.id, "spans": [{"start": s.start, "end": s.end, "severity": s.severity, "side": s.side}
                                          for s in seg.spans]}
        record |= {k: v for k, v in (("target", seg.target), ("source", seg.source)) if v is not None}
        lines.append(json.dumps(record, ensure_ascii=False))
    return write_lines(path, lines)


def sniff(path: Path, first: dict | None) -> bool:
    return first is not None and "id" in first and "spans" in first

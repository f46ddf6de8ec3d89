"""tribunal's own ``mt evaluate`` output: ``errors.jsonl`` in the run's folder (or the folder itself).

One line per cell, ``{"lp", "system", "segment", "key", "status", "score", "errors": [{"span", "severity",
"is_source_error", "start", "end", "grounding", ...}]}``. Segment ids are ``SYSTEM|SEGMENT``. Only
``scored`` cells are read (an unscored cell is no judgment, not "no error"); an error the grounding
could not locate (``start`` null) has no offsets and is left out, as the summary does.
"""

from __future__ import annotations

import json
from pathlib import Path

from tribunal.data.errors import DataFormatError
from tribunal.data.span_files.common import add_segment, checked_span, json_lines, split_id, write_lines
from tribunal.core.spans import SegmentSpans

NAME = "tribunal"
FILE = "errors.jsonl"


def resolve(path: Path) -> Path:
    return path / FILE if path.is_dir() else path


def read(path: Path) -> dict[str, SegmentSpans]:
    path = resolve(path)
    table: dict[str, SegmentSpans] = {}
    for number, obj in json_lines(path):
        if "system" not in obj or "segment" not in obj or not isinstance(obj.get("errors"), list):
            raise DataFormatError(path, number, 'an errors.jsonl line needs "system", "segment" and an "errors" list')
        if obj.get("status") != "scored":
            continue
        spans = [checked_span(path, number, e["start"], e["end"], e.get("severity", ""),
                              "source" if e.get("is_source_error") else "target")
                 for e in obj["errors"] if isinstance(e, dict) and e.get("start") is not None]
        add_segment(path, number, table, SegmentSpans(f"{obj['system']}|{obj['segment']}", tuple(spans)))
    return table


def write(path: Path, segments: list[SegmentSpans], lp: str = "") -> Path:
    lines = []
    for seg in segments:
        system, segment = split_id(seg.id, path)
        errors = []
        for s in seg.spans:
            text = seg.source if s.side == "source" else seg.target
            errors.append({"span": text[s.start:s.end] if text else "", "severity": s.severity,
                           "is_source_error": s.side == "source", "start": s.start, "end": s.end, "grounding": "exact"})
        lines.append(json.dumps({"lp": lp, "system": system, "segment": int(segment) if segment.isdigit() else segment,
                                 "status": "scored", "errors": errors}, ensure_ascii=False))
    return write_lines(resolve(path), lines)


def sniff(path: Path, first: dict | None) -> bool:
    return path.is_dir() and (path / FILE).is_file() or (
        first is not None and "segment" in first and "status" in first and "errors" in first)

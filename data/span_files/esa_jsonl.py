"""ESA annotations as WMT24's human-evaluation dump publishes them (``wmt24-news-systems`` humeval JSONL):
one line per annotated translation, ``{"langs", "line_id", "system", "src", "tgt", "annotator", "esa_score",
"esa_spans": [{"start_i", "end_i", "severity"}]}``.

Segment ids are ``SYSTEM|LINE_ID``. An ESA span whose offsets are ``"missing"`` marks an omission
with no characters: it is read as an empty span at 0 (which every measure leaves out and counts as
``dropped_empty``) and written back as ``"missing"``. ESA marks only the translation, so every span is
target-side; writing a source-side span is an error.
"""

from __future__ import annotations

import json
from pathlib import Path

from tribunal.data.errors import DataFormatError
from tribunal.data.span_files.common import add_segment, checked_span, json_lines, split_id, write_lines
from tribunal.core.spans import SegmentSpans

NAME = "esa"
MISSING = "missing"


def read(path: Path, annotator: str | None = None) -> dict[str, SegmentSpans]:
    table: dict[str, SegmentSpans] = {}
    for number, obj in json_lines(path):
        if not isinstance(obj.get("esa_spans"), list) or "system" not in obj or "line_id" not in obj:
            raise DataFormatError(path, number, 'an ESA line needs "system", "line_id" and an "esa_spans" list')
        if annotator is not None and str(obj.get("annotator")) != annotator:
            continue
        spans = []
        for s in obj["esa_spans"]:
            if not isinstance(s, dict) or "start_i" not in s or "end_i" not in s:
                raise DataFormatError(path, number, 'each ESA span needs "start_i" and "end_i"')
            if s["start_i"] == MISSING or s["end_i"] == MISSING:
                spans.append(checked_span(path, number, 0, 0, s.get("severity", "")))
            else:
                spans.append(checked_span(path, number, s["start_i"], s["end_i"], s.get("severity", "")))
        segment = SegmentSpans(f"{obj['system']}|{obj['line_id']}", tuple(spans), obj.get("tgt"), obj.get("src"))
        add_segment(path, number, table, segment)
    return table


def write(path: Path, segments: list[SegmentSpans], langs: str = "", annotator: str = "") -> Path:
    lines = []
    for seg in segments:
        system, line_id = split_id(seg.id, path)
        if any(s.side != "target" for s in seg.spans):
            raise DataFormatError(path, None, f"segment {seg.id!r}: ESA has no source-side spans")
        spans = [{"start_i": s.start, "end_i": s.end, "severity": s.severity} if s.end > s.start
                 else {"start_i": MISSING, "end_i": MISSING, "severity": s.severity} for s in seg.spans]
        lines.append(json.dumps({"langs": langs, "line_id": int(line_id) if line_id.isdigit() else line_id,
                                 "system": system, "src": seg.source or "", "tgt": seg.target or "",
                                 "annotator": annotator, "esa_score": None, "esa_spans": spans}, ensure_ascii=False))
    return write_lines(path, lines)


def sniff(path: Path, first: dict | None) -> bool:
    return first is not None and "esa_spans" in first

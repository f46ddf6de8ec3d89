"""Google's MQM TSV (TED MQM, WMT MQM releases): one row per error, the span marked ``<v>…</v>`` in the
target (or in the source for a source-side error); a segment without errors has one ``No-error`` row.

Reading goes through :func:`tribunal.data.mqm_tsv.read_mqm_tsv`. Segment ids are ``SYSTEM|SEG_ID``.
A row without a mark (an error with no span) has no characters and is left out. A cell rated by
several raters needs ``rater=NAME`` (the file's ``rater`` column); TED MQM has one rater per cell.
Writing needs the segment's texts (the marks go into them) and a severity MQM knows.
"""

from __future__ import annotations

from pathlib import Path

from tribunal.data.errors import DataFormatError
from tribunal.data.mqm_tsv import CLOSE, COLUMNS, OPEN, SEVERITIES, annotated_segments, read_mqm_tsv
from tribunal.data.span_files.common import split_id, write_lines
from tribunal.core.spans import SegmentSpans, span

NAME = "mqm-tsv"


def read(path: Path, rater: str | None = None) -> dict[str, SegmentSpans]:
    table: dict[str, SegmentSpans] = {}
    raters: dict[str, str] = {}
    for cell in annotated_segments(read_mqm_tsv(path)):
        if rater is not None and cell.rater != rater:
            continue
        key = f"{cell.system}|{cell.seg_id}"
        if key in raters and raters[key] != cell.rater:
            raise DataFormatError(path, None, f"segment {key!r} is rated by {raters[key]} and {cell.rater}: "
                                  "choose one rater")
        raters[key] = cell.rater
        spans = tuple(span(e.start, e.end, e.severity or "", "source" if e.is_source_error else "target")
                      for e in cell.errors if e.start is not None)
        old = table.get(key)
        table[key] = SegmentSpans(key, (old.spans if old else ()) + spans, cell.target, cell.source)
    return table


def _marked(text: str, start: int, end: int) -> str:
    return text[:start] + OPEN + text[start:end] + CLOSE + text[end:]


def write(path: Path, segments: list[SegmentSpans], rater: str = "rater") -> Path:
    lines = ["\t".join(COLUMNS)]
    for seg in segments:
        system, seg_id = split_id(seg.id, path)
        if seg.target is None or seg.source is None:
            raise DataFormatError(path, None, f"segment {seg.id!r}: MQM TSV needs the source and target texts")
        row = [system, "", "", seg_id, rater]
        if not seg.spans:
            lines.append("\t".join(row + [seg.source, seg.target, "No-error", "No-error"]))
        for s in seg.spans:
            if s.severity not in SEVERITIES or SEVERITIES[s.severity] is None:
                raise DataFormatError(path, None, f"segment {seg.id!r}: severity {s.severity!r} is not an MQM severity")
            source = _marked(seg.source, s.start, s.end) if s.side == "source" else seg.source
            target = _marked(seg.target, s.start, s.end) if s.side == "target" else seg.target
            lines.append("\t".join(row + [source, target, "", s.severity.capitalize()]))
    return write_lines(path, lines)


def sniff(path: Path, first_line: str) -> bool:
    return tuple(h.strip().lower() for h in first_line.split("\t")[:9]) == COLUMNS

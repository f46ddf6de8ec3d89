"""The WMT25 error-span TSV (the unified MT evaluation task's span subtask, as WMT24's ESA data are
converted for it): a header, then one row per segment with

``doc_id, segment_id, source_lang, target_lang, set_id, system_id, source_segment, hypothesis_segment,
reference_segment, domain_name, method, start_indices, end_indices, error_types``

where the last three hold space-separated, aligned lists (half-open character offsets into
``hypothesis_segment``, severities ``minor`` / ``major``), and a segment without errors has
``-1``, ``-1``, ``no-error``; an omission has ``missing`` offsets.

Source: the task page (www2.statmt.org/wmt25/mteval-subtask2.html) says spans are predicted as start
and end indices with a major/minor severity, but its "Submission format" section was cut off in the
copy we could search; the column list above is the one a public conversion script for the task
writes (``create TSV file from WMT24 ESA JSONL data``). Reading needs ``system_id``, ``segment_id``,
``start_indices``, ``end_indices`` and ``error_types``; other columns are optional. Segment ids are
``SYSTEM_ID|SEGMENT_ID``. The format has no source-side spans.
"""

from __future__ import annotations

from pathlib import Path

from tribunal.data.errors import DataFormatError
from tribunal.data.span_files.common import add_segment, checked_span, split_id, write_lines
from tribunal.data.text_files import read_lines
from tribunal.core.spans import SegmentSpans

NAME = "wmt25-tsv"
COLUMNS = ("doc_id", "segment_id", "source_lang", "target_lang", "set_id", "system_id", "source_segment",
           "hypothesis_segment", "reference_segment", "domain_name", "method", "start_indices", "end_indices",
           "error_types")
REQUIRED = ("segment_id", "system_id", "start_indices", "end_indices", "error_types")
NO_ERROR, NO_INDEX, MISSING = "no-error", "-1", "missing"


def _int(path: Path, number: int, text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise DataFormatError(path, number, f"span index {text!r} is not an integer") from None


def read(path: Path) -> dict[str, SegmentSpans]:
    lines = read_lines(path)
    header = lines[0].split("\t") if lines else []
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise DataFormatError(path, 1, f"header lacks {', '.join(missing)}")
    col = {name: i for i, name in enumerate(header)}
    table: dict[str, SegmentSpans] = {}
    for number, line in enumerate(lines[1:], 2):
        fields = line.split("\t")
        if len(fields) != len(header):
            raise DataFormatError(path, number, f"expected {len(header)} tab-separated columns, found {len(fields)}")
        starts, ends, types = (fields[col[c]].split() for c in ("start_indices", "end_indices", "error_types"))
        if not len(starts) == len(ends) == len(types):
            raise DataFormatError(path, number, "start_indices, end_indices and error_types differ in length")
        spans = []
        for start, end, kind in zip(starts, ends, types):
            if kind == NO_ERROR:
                continue
            if MISSING in (start, end):
                spans.append(checked_span(path, number, 0, 0, kind))
            else:
                spans.append(checked_span(path, number, _int(path, number, start), _int(path, number, end), kind))
        text = lambda name: fields[col[name]] if name in col else None  # noqa: E731
        add_segment(path, number, table, SegmentSpans(f"{fields[col['system_id']]}|{fields[col['segment_id']]}",
                                                      tuple(spans), text("hypothesis_segment"), text("source_segment")))
    return table


def write(path: Path, segments: list[SegmentSpans], source_lang: str = "", target_lang: str = "") -> Path:
    lines = ["\t".join(COLUMNS)]
    for seg in segments:
        system, segment = split_id(seg.id, path)
        if any(s.side != "target" for s in seg.spans):
            raise DataFormatError(path, None, f"segment {seg.id!r}: the WMT25 TSV has no source-side spans")
        if seg.spans:
            starts = [str(s.start) if s.end > s.start else MISSING for s in seg.spans]
            ends = [str(s.end) if s.end > s.start else MISSING for s in seg.spans]
            types = [s.severity or "minor" for s in seg.spans]
        else:
            starts, ends, types = [NO_INDEX], [NO_INDEX], [NO_ERROR]
        row = ["", segment, source_lang, target_lang, "official", system, seg.source or "", seg.target or "", "", "",
               "", " ".join(starts), " ".join(ends), " ".join(types)]
        lines.append("\t".join(row))
    return write_lines(path, lines)


def sniff(path: Path, first_line: str) -> bool:
    return all(c in first_line.split("\t") for c in REQUIRED)

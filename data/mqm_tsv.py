"""Reader for Google's MQM annotation TSVs (e.g. TED MQM): one row per error, spans marked ``<v>…</v>``.

Columns: system, doc, doc_id, seg_id, rater, source, target, category, severity[, comment]
(en-de files carry the comment column, zh-en files do not). Severities are Major / Minor /
No-error (plus Critical / Neutral in other releases). A span is marked in the target, or in the
source for a source-side error; some errors carry no mark at all (their span is None), and an
opening mark without a closing one (one row in TED en-de) runs to the end of the text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Iterator

from tribunal.core.mqm_annotation import AnnotatedSegment, MQMRow
from tribunal.data.errors import DataFormatError
from tribunal.data.text_files import read_lines, split_lines

COLUMNS = ("system", "doc", "doc_id", "seg_id", "rater", "source", "target", "category", "severity")
SEVERITIES = {"major": "major", "minor": "minor", "critical": "critical", "neutral": "neutral", "no-error": None}
OPEN, CLOSE = "<v>", "</v>"


def strip_marks(text: str, path: Path, line: int) -> tuple[str, tuple[int, int] | None]:
    """``(text without marks, (start, end) of the marked span or None)``."""
    opens, closes = text.count(OPEN), text.count(CLOSE)
    if opens == 0 and closes == 0:
        return text, None
    if opens == 1 and closes == 0:  # seen in TED MQM: an unclosed mark runs to the end of the text
        start = text.index(OPEN)
        plain = text.replace(OPEN, "", 1)
        return plain, (start, len(plain))
    if opens != 1 or closes != 1 or text.index(OPEN) > text.index(CLOSE):
        raise DataFormatError(path, line, f"unbalanced span marks ({opens} {OPEN}, {closes} {CLOSE})")
    start = text.index(OPEN)
    end = text.index(CLOSE) - len(OPEN)
    return text.replace(OPEN, "", 1).replace(CLOSE, "", 1), (start, end)


def _row(path: Path, number: int, fields: list[str], has_comment: bool) -> MQMRow:
    severity_text = fields[8].strip()
    if severity_text.lower() not in SEVERITIES:
        raise DataFormatError(path, number, f"unknown severity {severity_text!r} (expected Major, Minor, No-error)")
    try:
        seg_id = int(fields[3])
    except ValueError:
        raise DataFormatError(path, number, f"seg_id {fields[3]!r} is not an integer") from None
    source, source_span = strip_marks(fields[5], path, number)
    target, target_span = strip_marks(fields[6], path, number)
    if source_span and target_span:
        raise DataFormatError(path, number, "span marks in both source and target")
    span = target_span or source_span
    return MQMRow(
        system=fields[0], doc=fields[1], doc_id=fields[2], seg_id=seg_id, rater=fields[4],
        source=source, target=target, category=fields[7].strip(), severity=SEVERITIES[severity_text.lower()],
        start=span[0] if span else None, end=span[1] if span else None,
        is_source_error=bool(source_span), comment=fields[9] if has_comment else "",
    )


def read_mqm_tsv(path: str | Path) -> Iterator[MQMRow]:
    """Yield the rows of an MQM TSV; a malformed line raises :class:`DataFormatError`."""
    path = Path(path)
    return _rows(path, read_lines(path))


def parse_mqm_tsv(path: str | Path, content: bytes) -> Iterator[MQMRow]:
    """The rows of an MQM TSV's bytes, as :func:`read_mqm_tsv` reads them (``path`` names it in errors)."""
    path = Path(path)
    return _rows(path, split_lines(path, content))


def _rows(path: Path, lines: list[str]) -> Iterator[MQMRow]:
    if not lines:
        raise DataFormatError(path, None, "empty file (expected a header line)")
    header = [h.strip().lower() for h in lines[0].split("\t")]
    if tuple(header[:9]) != COLUMNS or len(header) not in (9, 10):
        raise DataFormatError(path, 1, f"header must be {', '.join(COLUMNS)}[, comment]; found {', '.join(header)}")
    has_comment = len(header) == 10
    for number, line in enumerate(lines[1:], 2):
        fields = line.split("\t")
        if len(fields) != len(header):
            raise DataFormatError(path, number, f"expected {len(header)} tab-separated columns, found {len(fields)}")
        yield _row(path, number, fields, has_comment)


def annotated_segments(rows: Iterable[MQMRow]) -> list[AnnotatedSegment]:
    """Group rows by (system, segment, rater), in file order; No-error rows leave ``errors`` empty."""
    groups: dict[tuple[str, int, str], AnnotatedSegment] = {}
    for row in rows:
        key = (row.system, row.seg_id, row.rater)
        segment = groups.get(key)
        if segment is None:
            segment = groups[key] = AnnotatedSegment(row.system, row.seg_id, row.rater, row.source, row.target, [])
        if row.severity is not None:
            segment.errors.append(row)
    return list(groups.values())

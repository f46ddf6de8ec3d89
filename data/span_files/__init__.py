"""Readers and writers of span files, by format name, and a sniffer that tells a file's format.

Formats: ``jsonl`` (tribunal's plain form), ``esa`` (WMT24 ESA JSONL), ``mqm-tsv`` (Google MQM TSV with
``<v>`` marks, e.g. TED MQM), ``wmt25-tsv`` (the WMT25 span TSV), ``wmt-rating`` (mt-metrics-eval MQM
rating files), ``tribunal`` (``mt evaluate``'s ``errors.jsonl`` or its output folder). Every reader
returns ``{segment id: SegmentSpans}`` and raises :class:`~tribunal.data.errors.DataFormatError`
naming the file and line.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

from tribunal.data.errors import DataFormatError
from tribunal.data.span_files import esa_jsonl, mqm_tsv, plain_jsonl, tribunal_errors, wmt25_tsv, wmt_ratings
from tribunal.core.spans import SegmentSpans

FORMATS: dict[str, ModuleType] = {m.NAME: m for m in (plain_jsonl, esa_jsonl, mqm_tsv, wmt25_tsv, wmt_ratings,
                                                      tribunal_errors)}
_JSON = (tribunal_errors, esa_jsonl, plain_jsonl)
_TEXT = (wmt25_tsv, mqm_tsv, wmt_ratings)


def detect(path: Path) -> str:
    """The format of ``path`` from its first line (a folder: a ``mt evaluate`` output)."""
    path = Path(path)
    if path.is_dir():
        if tribunal_errors.sniff(path, None):
            return tribunal_errors.NAME
        raise DataFormatError(path, None, f"a folder without {tribunal_errors.FILE} (not a `mt evaluate` output)")
    if not path.is_file():
        raise DataFormatError(path, None, "no such file")
    with path.open(encoding="utf-8", errors="replace") as handle:
        first_line = handle.readline().rstrip("\r\n")
    try:
        first = json.loads(first_line)
    except json.JSONDecodeError:
        first = None
    if isinstance(first, dict):
        for module in _JSON:
            if module.sniff(path, first):
                return module.NAME
    else:
        for module in _TEXT:
            if module.sniff(path, first_line):
                return module.NAME
    raise DataFormatError(path, 1, f"cannot tell the span format; name it ({', '.join(FORMATS)})")


def read_spans(path: Path, fmt: str | None = None, rater: str | None = None) -> dict[str, SegmentSpans]:
    """Read any span file (``fmt`` None: detected); ``rater`` picks one rater of an MQM TSV / ESA file."""
    fmt = fmt or detect(path)
    if fmt not in FORMATS:
        raise ValueError(f"unknown span format {fmt!r} (choose from {', '.join(FORMATS)})")
    if rater is not None and fmt == mqm_tsv.NAME:
        return mqm_tsv.read(Path(path), rater=rater)
    if rater is not None and fmt == esa_jsonl.NAME:
        return esa_jsonl.read(Path(path), annotator=rater)
    return FORMATS[fmt].read(Path(path))


def write_spans(path: Path, segments: list[SegmentSpans], fmt: str) -> Path:
    if fmt not in FORMATS:
        raise ValueError(f"unknown span format {fmt!r} (choose from {', '.join(FORMATS)})")
    return FORMATS[fmt].write(Path(path), segments)

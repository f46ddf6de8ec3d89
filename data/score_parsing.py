"""Parse the bytes of a score file (``[DOMAIN\\t]SYSTEM\\tscore`` lines) into arrays, vectorised.

The fast path is Arrow's C++ CSV reader (pyarrow, which MLflow already requires): names as
dictionary columns (one Python string per distinct name, not per line), scores as float64,
which equal Python's ``float`` of the text. Anything it does not accept (a wrong column count,
an empty line, a score that is not a number, bytes that are not UTF-8), a NaN or infinite score
and a carriage return send the file to the careful line-by-line parse, which raises the error
naming the file and the first bad line, or accepts what Python's ``float`` accepts: the fast path
never decides an error.

A name column is ``(labels, codes)``: the distinct names and each line's index into them.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from tribunal.data.errors import DataFormatError
from tribunal.data.score_cache import Parsed
from tribunal.data.text_files import split_lines

Column = tuple[list[str], np.ndarray]


def _arrow_table(content: bytes, columns: int):
    """The file as an Arrow table (names as dictionaries, scores as float64, ``None`` as null), or None."""
    import pyarrow as pa  # heavy: pyarrow
    import pyarrow.csv as pacsv  # heavy: pyarrow

    names = [str(c) for c in range(columns)]
    types = {**{n: pa.dictionary(pa.int32(), pa.string()) for n in names[:-1]}, names[-1]: pa.float64()}
    try:
        return pacsv.read_csv(
            pa.py_buffer(content),
            # One thread per file: the callers read files on their own threads, and Arrow's CPU pool left running
            # at exit once aborted a process under load ("terminate called without an active exception").
            read_options=pacsv.ReadOptions(column_names=names, use_threads=False),
            parse_options=pacsv.ParseOptions(delimiter="\t", quote_char=False, double_quote=False, escape_char=False,
                                             ignore_empty_lines=False),
            convert_options=pacsv.ConvertOptions(column_types=types, null_values=["None"], strings_can_be_null=False,
                                                 quoted_strings_can_be_null=False),
        ).unify_dictionaries()
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None


def _fast_columns(content: bytes, columns: int) -> tuple[list[Column], np.ndarray] | None:
    """(name columns, float scores with NaN for ``None``), or None for the careful path."""
    if not content:
        return [([], np.empty(0, np.int64)) for _ in range(columns - 1)], np.empty(0)
    if b"\r" in content:  # line ends as text mode reads them: the careful path decides
        return None
    table = _arrow_table(content, columns)
    if table is None:
        return None
    score_column = table.column(columns - 1)
    scores = score_column.to_numpy()
    # NaN must come from a literal None only (null), not from 'nan'; infinities are refused.
    if int(np.isnan(scores).sum()) != score_column.null_count or np.isinf(scores).any():
        return None
    found = []
    for c in range(columns - 1):
        chunks = table.column(c).chunks
        labels = chunks[0].dictionary.to_pylist() if chunks else []
        codes = np.concatenate([chunk.indices.to_numpy(zero_copy_only=False) for chunk in chunks] or [[]])
        found.append((labels, codes.astype(np.int64)))
    return found, np.asarray(scores, dtype=np.float64)


def _score(path: Path, number: int, text: str) -> float:
    if text == "None":
        return math.nan
    try:
        value = float(text)
    except ValueError:
        raise DataFormatError(path, number, f"score {text!r} is not a number or None") from None
    if math.isnan(value):
        raise DataFormatError(path, number, "score is NaN; write None for an unrated cell")
    if math.isinf(value):
        raise DataFormatError(path, number, f"score {text!r} is not finite; write None for an unrated cell")
    return value


def _careful_columns(path: Path, content: bytes, columns: int, header: str) -> tuple[list[Column], np.ndarray]:
    """Line by line: the first bad line raises a :class:`DataFormatError` naming it."""
    rows = [line.split("\t") for line in split_lines(path, content)]
    for number, row in enumerate(rows, 1):
        if len(row) != columns:
            raise DataFormatError(path, number,
                                  f"expected {columns} tab-separated columns ({header}), found {len(row)}")
    scores = np.array([_score(path, n, row[-1]) for n, row in enumerate(rows, 1)], dtype=np.float64)
    names = []
    for c in range(columns - 1):
        labels = list(dict.fromkeys(row[c] for row in rows))
        index = {label: k for k, label in enumerate(labels)}
        names.append((labels, np.array([index[row[c]] for row in rows], dtype=np.int64)))
    return names, scores


def _columns(path: Path, content: bytes, columns: int, header: str) -> tuple[list[Column], np.ndarray]:
    return _fast_columns(content, columns) or _careful_columns(path, content, columns, header)


def _strings(column: Column) -> list[str]:
    labels, codes = column
    return [labels[c] for c in codes.tolist()]


def group_by_system(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(first line of each system in order of first appearance, its line count, the stable order that
    groups the lines by system, or None when the file already has one block per system)."""
    n = len(codes)
    if n == 0:
        return np.empty(0, np.int64), np.empty(0, np.int64), None
    starts = np.flatnonzero(np.concatenate(([True], codes[1:] != codes[:-1])))
    if len(np.unique(codes[starts])) == len(starts):  # one block per system: the usual layout
        return starts, np.diff(np.append(starts, n)), None
    _, first, line_codes = np.unique(codes, return_index=True, return_inverse=True)
    appearance = np.argsort(first, kind="stable")
    rank = np.empty_like(appearance)
    rank[appearance] = np.arange(len(appearance))
    line_codes = rank[line_codes.ravel()]
    return first[appearance], np.bincount(line_codes, minlength=len(first)), np.argsort(line_codes, kind="stable")


def parse_seg(path: Path, content: bytes) -> Parsed:
    """A ``.seg.score`` file: systems in order of first appearance, their line counts, scores grouped by system."""
    ((labels, codes),), scores = _columns(path, content, 2, "SYSTEM, score")
    firsts, counts, order = group_by_system(codes)
    return Parsed({"systems": [labels[c] for c in codes[firsts].tolist()]},
                  {"scores": scores if order is None else scores[order], "counts": counts.astype(np.int64)})


def parse_sys(path: Path, content: bytes) -> Parsed:
    """A ``.sys.score`` file; a system named twice is an error."""
    (column,), scores = _columns(path, content, 2, "SYSTEM, score")
    systems = _strings(column)
    if len(set(systems)) != len(systems):
        seen: set[str] = set()
        for number, system in enumerate(systems, 1):
            if system in seen:
                raise DataFormatError(path, number, f"system {system!r} appears twice")
            seen.add(system)
    return Parsed({"systems": list(systems)}, {"scores": scores})


def parse_domain(path: Path, content: bytes) -> Parsed:
    """A ``.domain.score`` file (``DOMAIN\\tSYSTEM\\tscore``)."""
    (domains, systems), scores = _columns(path, content, 3, "DOMAIN, SYSTEM, score")
    return Parsed({"domains": _strings(domains), "systems": _strings(systems)}, {"scores": scores})

"""Parse the bytes of a score file (``[DOMAIN\\t]SYSTEM\\tscore`` lines) into arrays, vectorised.

The fast path finds every tab and newline with numpy, checks that each line has exactly the
expected tabs, splits the text in C (``bytes.split``) and converts the score column in one numpy
call. Anything it does not accept (a wrong column count, a score that is not a number, NaN or
infinite, bytes that are not UTF-8, a carriage return) sends the file to the careful
line-by-line parse, which raises the error naming the file and the first bad line, or accepts
what Python's ``float`` accepts: the fast path never decides an error, and on the files it does
accept it gives exactly ``float(text)`` for every score.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from tribunal.eval.data.errors import DataFormatError
from tribunal.eval.data.score_cache import Parsed
from tribunal.eval.data.text_files import split_lines

_TAB, _NEWLINE = 9, 10


def _fast_columns(content: bytes, columns: int) -> tuple[list[np.ndarray], np.ndarray] | None:
    """(name columns as bytes arrays, float scores with NaN for ``None``), or None for the careful path."""
    if content and not content.endswith(b"\n"):
        content += b"\n"
    if b"\r" in content:
        return None
    buf = np.frombuffer(content, np.uint8)
    ends = np.flatnonzero(buf == _NEWLINE)
    tabs = np.flatnonzero(buf == _TAB)
    if len(tabs) != (columns - 1) * len(ends):
        return None
    if len(ends) and np.any(np.bincount(np.searchsorted(ends, tabs), minlength=len(ends)) != columns - 1):
        return None
    tokens = content.replace(b"\t", b"\n").split(b"\n")[:-1]
    text = np.array(tokens[columns - 1::columns], dtype=bytes)
    unrated = text == b"None"
    try:
        scores = np.where(unrated, b"0", text).astype(np.float64)
    except ValueError:
        return None
    if not np.isfinite(scores).all():
        return None
    scores[unrated] = np.nan
    return [np.array(tokens[c::columns], dtype=bytes) for c in range(columns - 1)], scores


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


def _careful_columns(path: Path, content: bytes, columns: int, header: str) -> tuple[list[list[str]], np.ndarray]:
    """Line by line: the first bad line raises a :class:`DataFormatError` naming it."""
    rows = [line.split("\t") for line in split_lines(path, content)]
    for number, row in enumerate(rows, 1):
        if len(row) != columns:
            raise DataFormatError(path, number, f"expected {columns} tab-separated columns ({header}), found {len(row)}")
    scores = np.array([_score(path, n, row[-1]) for n, row in enumerate(rows, 1)], dtype=np.float64)
    return [[row[c] for row in rows] for c in range(columns - 1)], scores


def _names(path: Path, content: bytes, columns: int, header: str) -> tuple[list[np.ndarray], np.ndarray]:
    """The name columns (bytes arrays from the fast path, str arrays from the careful one) and the scores."""
    fast = _fast_columns(content, columns)
    if fast is not None:
        return fast
    names, scores = _careful_columns(path, content, columns, header)
    return [np.array(column, dtype=str) for column in names], scores


def _decoded(path: Path, content: bytes, values: list) -> list[str]:
    """Names as str; bytes that are not UTF-8 go to the careful parse, which names the line."""
    try:
        return [v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in values]
    except UnicodeDecodeError:
        split_lines(path, content)  # raises, naming the line
        raise


def _columns(path: Path, content: bytes, columns: int, header: str) -> tuple[list[list[str]], np.ndarray]:
    names, scores = _names(path, content, columns, header)
    return [_decoded(path, content, column.tolist()) for column in names], scores


def group_by_system(names: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(first line of each system in order of first appearance, its line count, the stable order that
    groups the lines by system, or None when the file already has one block per system)."""
    n = len(names)
    if n == 0:
        return np.empty(0, np.int64), np.empty(0, np.int64), None
    starts = np.flatnonzero(np.concatenate(([True], names[1:] != names[:-1])))
    if len(np.unique(names[starts])) == len(starts):  # one block per system: the usual layout
        return starts, np.diff(np.append(starts, n)), None
    _, first, codes = np.unique(names, return_index=True, return_inverse=True)
    appearance = np.argsort(first, kind="stable")
    rank = np.empty_like(appearance)
    rank[appearance] = np.arange(len(appearance))
    line_codes = rank[codes.ravel()]
    return first[appearance], np.bincount(line_codes, minlength=len(first)), np.argsort(line_codes, kind="stable")


def parse_seg(path: Path, content: bytes) -> Parsed:
    """A ``.seg.score`` file: systems in order of first appearance, their line counts, scores grouped by system."""
    (names,), scores = _names(path, content, 2, "SYSTEM, score")
    firsts, counts, order = group_by_system(names)
    systems = _decoded(path, content, names[firsts].tolist())
    return Parsed({"systems": systems},
                  {"scores": scores if order is None else scores[order], "counts": counts.astype(np.int64)})


def parse_sys(path: Path, content: bytes) -> Parsed:
    """A ``.sys.score`` file; a system named twice is an error."""
    (systems,), scores = _columns(path, content, 2, "SYSTEM, score")
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
    return Parsed({"domains": list(domains), "systems": list(systems)}, {"scores": scores})

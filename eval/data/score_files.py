"""MTME score files: ``.seg.score`` / ``.sys.score`` (``SYSTEM\\tscore``) and ``.domain.score``.

``None`` marks an unrated cell and becomes NaN. Line i of a system's block in a segment file is
segment i of the source. NaN and non-finite scores (``inf``, ``-inf``, ``1e400``) are refused with
the file and line: they would silently change correlations and accuracies.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from tribunal.eval.data.atomic import write_text_atomically
from tribunal.eval.data.errors import DataFormatError
from tribunal.eval.data.text_files import read_lines


def _parse_score(path: Path, number: int, text: str) -> float:
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


def _rows(path: Path, columns: int, header: str) -> list[list[str]]:
    rows = [line.split("\t") for line in read_lines(path)]
    for number, row in enumerate(rows, 1):
        if len(row) != columns:
            raise DataFormatError(
                path, number, f"expected {columns} tab-separated columns ({header}), found {len(row)}"
            )
    return rows


def _fast_seg_scores(path: Path) -> tuple[np.ndarray, np.ndarray] | None:
    """(systems, scores) via pandas' C parser, or None when the file needs the careful parser."""
    try:
        frame = pd.read_csv(
            path, sep="\t", header=None, names=["system", "score"], dtype={"system": str},
            na_values=["None"], keep_default_na=False, quoting=csv.QUOTE_NONE, engine="c",
            skip_blank_lines=False,
        )
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError):
        return None
    if frame["score"].dtype.kind not in "if" or frame["system"].isna().any():
        return None
    return frame["system"].to_numpy(dtype=object), frame["score"].to_numpy(dtype=float)


def _careful_seg_scores(path: Path) -> tuple[list[str], list[float]]:
    """Line-by-line parse that names the first bad line."""
    rows = _rows(path, 2, "SYSTEM, score")
    return [r[0] for r in rows], [_parse_score(path, n, r[1]) for n, r in enumerate(rows, 1)]


def read_seg_scores(path: str | Path, n_segments: int | None = None) -> dict[str, np.ndarray]:
    """Read a segment-level score file into ``{system: scores}`` (NaN where ``None``).

    With ``n_segments``, every system must have exactly that many lines.
    """
    path = Path(path)
    if not path.is_file():
        raise DataFormatError(path, None, "file not found")
    fast = _fast_seg_scores(path)
    systems, scores = fast if fast is not None else _careful_seg_scores(path)
    systems = np.asarray(systems, dtype=object)
    scores = np.asarray(scores, dtype=float)
    codes, names = pd.factorize(systems)  # codes follow the file's order of first appearance
    contiguous = bool(np.all(codes[1:] >= codes[:-1]))  # the usual one-block-per-system layout
    order = np.arange(len(codes)) if contiguous else np.argsort(codes, kind="stable")
    bounds = np.concatenate(([0], np.cumsum(np.bincount(codes, minlength=len(names)))))
    blocks: dict[str, np.ndarray] = {}
    for k in range(len(names)):
        rows = order[bounds[k]:bounds[k + 1]]
        if n_segments is not None and len(rows) != n_segments:
            line = int(rows[n_segments]) + 1 if len(rows) > n_segments else len(systems)
            raise DataFormatError(
                path, line, f"system {names[k]!r} has {len(rows)} lines but the source has {n_segments} segments"
            )
        blocks[str(names[k])] = scores[rows]
    if fast is not None and np.isinf(scores).any():
        _careful_seg_scores(path)
    return blocks


def read_sys_scores(path: str | Path) -> dict[str, float]:
    """Read a system-level score file into ``{system: score}`` (NaN where ``None``)."""
    path = Path(path)
    scores: dict[str, float] = {}
    for number, (system, text) in enumerate(_rows(path, 2, "SYSTEM, score"), 1):
        if system in scores:
            raise DataFormatError(path, number, f"system {system!r} appears twice")
        scores[system] = _parse_score(path, number, text)
    return scores


def read_domain_scores(path: str | Path) -> dict[tuple[str, str], float]:
    """Read a domain-level score file into ``{(domain, system): score}``."""
    path = Path(path)
    scores: dict[tuple[str, str], float] = {}
    for number, (domain, system, text) in enumerate(_rows(path, 3, "DOMAIN, SYSTEM, score"), 1):
        scores[(domain, system)] = _parse_score(path, number, text)
    return scores


def _format(value: float | None) -> str:
    return "None" if value is None or (isinstance(value, float) and math.isnan(value)) else repr(float(value))


def write_seg_scores(path: str | Path, scores: Mapping[str, Sequence[float | None]]) -> None:
    """Write ``{system: per-segment scores}`` as a ``.seg.score`` file (None/NaN -> ``None``)."""
    lines = [f"{system}\t{_format(v)}" for system, values in scores.items() for v in values]
    write_text_atomically(path, "".join(line + "\n" for line in lines))


def write_sys_scores(path: str | Path, scores: Mapping[str, float | None]) -> None:
    """Write ``{system: score}`` as a ``.sys.score`` file."""
    write_text_atomically(path, "".join(f"{s}\t{_format(v)}\n" for s, v in scores.items()))

"""MTME score files: ``.seg.score`` / ``.sys.score`` (``SYSTEM\\tscore``) and ``.domain.score``.

``None`` marks an unrated cell and becomes NaN. Line i of a system's block in a segment file is
segment i of the source. NaN and non-finite scores (``inf``, ``-inf``, ``1e400``) are refused with
the file and line: they would silently change correlations and accuracies.

A file is parsed by :mod:`score_parsing` (vectorised, with a line-by-line fallback that names the
first bad line) and, given a :class:`ScoreCache`, read from disk only when it changed.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Callable, Mapping, Sequence

import numpy as np

from tribunal.data.atomic import write_text_atomically
from tribunal.data.errors import DataFormatError
from tribunal.data.score_cache import Parsed, ScoreCache
from tribunal.data.score_parsing import parse_domain, parse_seg, parse_sys


def _parsed(path: str | Path, kind: str, parse: Callable[[Path, bytes], Parsed], cache: ScoreCache | None) -> Parsed:
    path = Path(path)
    if not path.is_file():
        raise DataFormatError(path, None, "file not found")
    if cache is None:
        return parse(path, path.read_bytes())
    return cache.load(path, kind, lambda content: parse(path, content))


def _count_error(path: Path, system: str, count: int, total: int, n_segments: int) -> DataFormatError:
    """The error for a system whose block is not ``n_segments`` long, at its first extra line (or the last line)."""
    line = total
    if count > n_segments:
        seen = 0
        for number, text in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
            seen += text.split("\t", 1)[0] == system
            if seen > n_segments:
                line = number
                break
    return DataFormatError(path, line, f"system {system!r} has {count} lines but the source has {n_segments} segments")


def read_seg_scores(path: str | Path, n_segments: int | None = None,
                    cache: ScoreCache | None = None) -> dict[str, np.ndarray]:
    """Read a segment-level score file into ``{system: scores}`` (NaN where ``None``).

    With ``n_segments``, every system must have exactly that many lines.
    """
    parsed = _parsed(path, "seg", parse_seg, cache)
    systems, counts, scores = parsed.strings["systems"], parsed.arrays["counts"], parsed.arrays["scores"]
    if n_segments is not None and np.any(counts != n_segments):
        k = int(np.flatnonzero(counts != n_segments)[0])
        raise _count_error(Path(path), systems[k], int(counts[k]), int(counts.sum()), n_segments)
    bounds = np.concatenate(([0], np.cumsum(counts)))
    return {system: scores[bounds[k]:bounds[k + 1]] for k, system in enumerate(systems)}


def read_sys_scores(path: str | Path, cache: ScoreCache | None = None) -> dict[str, float]:
    """Read a system-level score file into ``{system: score}`` (NaN where ``None``)."""
    parsed = _parsed(path, "sys", parse_sys, cache)
    return dict(zip(parsed.strings["systems"], parsed.arrays["scores"].tolist()))


def read_domain_scores(path: str | Path, cache: ScoreCache | None = None) -> dict[tuple[str, str], float]:
    """Read a domain-level score file into ``{(domain, system): score}``."""
    parsed = _parsed(path, "domain", parse_domain, cache)
    keys = zip(parsed.strings["domains"], parsed.strings["systems"])
    return dict(zip(keys, parsed.arrays["scores"].tolist()))


def _format(value: float | None) -> str:
    return "None" if value is None or (isinstance(value, float) and math.isnan(value)) else repr(float(value))


def write_seg_scores(path: str | Path, scores: Mapping[str, Sequence[float | None]]) -> None:
    """Write ``{system: per-segment scores}`` as a ``.seg.score`` file (None/NaN -> ``None``)."""
    lines = [f"{system}\t{_format(v)}" for system, values in scores.items() for v in values]
    write_text_atomically(path, "".join(line + "\n" for line in lines))


def write_sys_scores(path: str | Path, scores: Mapping[str, float | None]) -> None:
    """Write ``{system: score}`` as a ``.sys.score`` file."""
    write_text_atomically(path, "".join(f"{s}\t{_format(v)}\n" for s, v in scores.items()))

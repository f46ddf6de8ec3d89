"""Several raters' scores of the same items, read from a WMT layout or from a user's JSONL file.

- **A WMT layout** (``--data DIR --lp LP``): each rater is a file of ``human-scores/``: a rating file
  ``LP.NAME.seg.rating`` (MQM errors; the cell's score is ``-sum`` of its errors' ``score``, or of the WMT
  weights by severity where an error has none) or a score file ``LP.NAME.seg.score`` (e.g. WMT25's
  ``esa-human1`` / ``esa-human2``). An item is a cell, named ``SYSTEM:SEGMENT`` (segment = 0-based line).
  By default the raters are the pair's rating files (when there are two or more), else its
  ``NAME-human1``, ``NAME-human2``, ... score files.
- **User files**: one JSON object per line and rater, ``{"item": "doc3:2", "rater": "ann1", "score": -6.0}``;
  ``item`` a string or integer, ``rater`` a non-empty string, ``score`` a finite number or ``null``
  (not rated). Any other key, a duplicate (item, rater) or a malformed line stops with ``FILE:LINE``.

Scales: rating files and ``mqm*`` score files are on MQM's scale, ``esa*`` score files on ESA's
(0-100), anything else (and user files) ``other`` unless the caller says.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tribunal.errors import UserError
from tribunal.data.errors import DataFormatError
from tribunal.data.mtme import LanguagePair
from tribunal.core.rating import Rating
from tribunal.core.spans import Span
from tribunal.data.rating_cache import rated_segments
from tribunal.data.ratings import cached_ratings
from tribunal.data.score_cache import ScoreCache
from tribunal.data.text_files import read_lines
from tribunal.core.wmt_weights import wmt_weight
from tribunal.data.score_files import read_seg_scores

USER_KEYS = frozenset({"item", "rater", "score"})
_HUMAN_N = re.compile(r"^(.+)-human\d+$")


@dataclass
class RaterTable:
    """Scores (raters x items, NaN where unrated), where they came from, and their scale."""

    items: list[str]
    raters: list[str]
    scores: np.ndarray
    scale: str
    files: list[Path] = field(default_factory=list)


def error_weight(error: Span) -> float:
    """The penalty of one rated error: its own ``score``, else the WMT MQM weight (:func:`wmt_weight`)."""
    return error.score if error.score is not None else wmt_weight(error.category, error.severity)


def rating_score(rating: Rating) -> float:
    """A rated cell's MQM score (``-sum`` of its penalties); NaN for an unrated cell."""
    return math.nan if rating is None else -sum(error_weight(e) for e in rating)


def cell_name(system: str, segment: int) -> str:
    return f"{system}:{segment}"


def scale_of(name: str) -> str:
    """``mqm`` / ``esa`` / ``other`` from a score name (``esa-human2`` -> ``esa``)."""
    lowered = name.lower()
    return "esa" if lowered.startswith("esa") else "mqm" if lowered.startswith("mqm") else "other"


def default_raters(pair: LanguagePair) -> list[str]:
    """The pair's rating files if two or more, else its ``NAME-humanN`` score files (two or more of one NAME)."""
    if len(pair.rating_names) >= 2:
        return list(pair.rating_names)
    scores = sorted(p.name[len(pair.lp) + 1:-len(".seg.score")]
                    for p in (pair.root / "human-scores").glob(f"{pair.lp}.*.seg.score"))
    groups: dict[str, list[str]] = {}
    for name in scores:
        found = _HUMAN_N.match(name)
        if found:
            groups.setdefault(found.group(1), []).append(name)
    several = [names for names in groups.values() if len(names) >= 2]
    if not several:
        raise UserError(f"{pair.lp}: no scores by several raters in {pair.root / 'human-scores'} (rating files: "
                        f"{', '.join(pair.rating_names) or 'none'}; score files: {', '.join(scores) or 'none'}); "
                        "name two or more with --human")
    return several[0]


def rater_file(pair: LanguagePair, name: str) -> Path:
    """The rating file ``LP.NAME.seg.rating`` of a rater, else its score file ``LP.NAME.seg.score``."""
    folder = pair.root / "human-scores"
    for path in (folder / f"{pair.lp}.{name}.seg.rating", folder / f"{pair.lp}.{name}.seg.score"):
        if path.is_file():
            return path
    raise UserError(f"--human {name}: no {pair.lp}.{name}.seg.rating or .seg.score in {folder}")


def _rater_cells(pair: LanguagePair, name: str) -> tuple[dict[str, np.ndarray], Path, str]:
    path = rater_file(pair, name)
    if path.name.endswith(".rating"):
        cells = {s: np.array([rating_score(r) for r in block]) for s, block in pair.ratings(name).items()}
        return cells, path, "mqm"

    return read_seg_scores(path, pair.n_segments, pair.cache), path, scale_of(name)


def rated_cells(path: Path, n_segments: int, cache: ScoreCache | None = None) -> set[str] | None:
    """The cells a rating or score file marks as rated (not ``None``), without parsing the ratings.

    None when the file is not in whole per-system blocks (the caller then reads it in full). With
    ``cache``, a rating file's cells come from its cached parse (exact, in any line order).
    """
    if cache is not None and path.name.endswith(".rating"):
        return {cell_name(system, k) for system, segments in rated_segments(cached_ratings(path, cache)).items()
                for k in segments.tolist()}
    lines = read_lines(path)
    if len(lines) % n_segments:
        return None
    cells = set()
    for k, line in enumerate(lines):
        if line.endswith("\tNone"):
            continue
        system = line.partition("\t")[0]
        if lines[k - k % n_segments].partition("\t")[0] != system:
            return None
        cells.add(cell_name(system, k % n_segments))
    return cells


def wmt_raters(pair: LanguagePair, names: list[str] | None = None) -> RaterTable:
    """The raters ``names`` (default: :func:`default_raters`) of a WMT layout, cell by cell."""
    names = list(dict.fromkeys(names or default_raters(pair)))
    read = [_rater_cells(pair, name) for name in names]
    scales = {scale for _, _, scale in read}
    if len(scales) > 1:
        raise UserError(f"--human: {', '.join(names)} are on different scales ({', '.join(sorted(scales))})")
    systems = list(dict.fromkeys(s for cells, _, _ in read for s in cells))
    items = [cell_name(s, i) for s in systems for i in range(pair.n_segments)]
    empty = np.full(pair.n_segments, np.nan)
    scores = np.array([np.concatenate([cells.get(s, empty) for s in systems]) for cells, _, _ in read])
    return RaterTable(items, names, scores, scales.pop(), [path for _, path, _ in read])


def _user_line(path: Path, number: int, line: str) -> tuple[str, str, float] | None:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as err:
        raise DataFormatError(path, number, f"not a JSON line: {err.msg}") from None
    if not isinstance(record, dict):
        raise DataFormatError(path, number, 'expected a JSON object {"item": ..., "rater": ..., "score": ...}')
    unknown = sorted(set(record) - USER_KEYS)
    missing = sorted(USER_KEYS - set(record))
    if unknown or missing:
        problem = f"unknown key {unknown[0]!r}" if unknown else f"missing key {missing[0]!r}"
        raise DataFormatError(path, number, f'{problem} (a line holds "item", "rater" and "score")')
    item, rater, score = record["item"], record["rater"], record["score"]
    if isinstance(item, bool) or not isinstance(item, (str, int)) or item == "":
        raise DataFormatError(path, number, "item must be a non-empty string or an integer")
    if not isinstance(rater, str) or not rater:
        raise DataFormatError(path, number, "rater must be a non-empty string")
    if score is None:
        return None
    if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
        raise DataFormatError(path, number, f"score must be a finite number or null, not {score!r}")
    return str(item), rater, float(score)


def user_ratings(paths: list[Path], scale: str = "other") -> RaterTable:
    """The raters of one or more user JSONL files (see the module docstring), items in first-seen order."""
    where: dict[tuple[str, str], str] = {}
    by_rater: dict[str, dict[str, float]] = {}
    items: dict[str, None] = {}
    for path in paths:
        lines = read_lines(path)
        if not any(line.strip() for line in lines):
            raise DataFormatError(path, None, "no ratings (empty file)")
        for number, line in enumerate(lines, 1):
            parsed = _user_line(path, number, line) if line.strip() else None
            if parsed is None:
                continue
            item, rater, score = parsed
            if (item, rater) in where:
                raise DataFormatError(path, number, f"rater {rater!r} scores item {item!r} twice "
                                                    f"(first at {where[(item, rater)]})")
            where[(item, rater)] = f"{path.name}:{number}"
            by_rater.setdefault(rater, {})[item] = score
            items.setdefault(item)
    order = list(items)
    scores = np.array([[given.get(item, np.nan) for item in order] for given in by_rater.values()]).reshape(
        len(by_rater), len(order))
    return RaterTable(order, list(by_rater), scores, scale, list(paths))

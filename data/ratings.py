"""MQM rating files with error spans: ``SYSTEM\\t{"errors": [...]}`` or ``SYSTEM\\tNone``.

Offsets are character offsets into the system output line (``start`` inclusive, ``end`` exclusive).
Given a :class:`~tribunal.data.score_cache.ScoreCache`, a file is parsed once across runs (until
it changes): :mod:`tribunal.data.rating_cache` stores the parse as arrays.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from tribunal.core.rating import Rating
from tribunal.core.spans import Span, side_of
from tribunal.data.errors import DataFormatError
from tribunal.data.text_files import split_lines

if TYPE_CHECKING:
    from tribunal.data.score_cache import Parsed, ScoreCache

SEVERITIES = frozenset({"minor", "major", "critical", "neutral"})
_FIELDS = ("start", "end", "category", "severity")


def _parse_error(path: Path, number: int, raw: object) -> Span:
    if not isinstance(raw, dict) or any(k not in raw for k in _FIELDS):
        raise DataFormatError(path, number, f"an error needs the fields {', '.join(_FIELDS)}")
    severity = str(raw["severity"]).lower()
    if severity not in SEVERITIES:
        raise DataFormatError(
            path, number, f"unknown severity {raw['severity']!r} (expected one of {sorted(SEVERITIES)})"
        )
    start, end = raw["start"], raw["end"]
    if not (isinstance(start, int) and isinstance(end, int)) or not 0 <= start <= end:
        raise DataFormatError(path, number, f"bad span offsets start={start!r} end={end!r}")
    score = raw.get("score")
    return Span(
        start=start,
        end=end,
        severity=severity,
        side=side_of(raw.get("is_source_error", False)),
        category=str(raw["category"]),
        score=None if score is None else float(score),
    )


def read_ratings(path: str | Path, n_segments: int | None = None,
                 cache: "ScoreCache | None" = None) -> dict[str, list[Rating]]:
    """Read a rating file into ``{system: [Rating per segment]}`` (through ``cache`` if given)."""
    path = Path(path)
    if not path.is_file():
        raise DataFormatError(path, None, "file not found")
    if cache is None:
        ratings = parse_ratings(path, path.read_bytes())
    else:
        from tribunal.data.rating_cache import decode_ratings  # heavy: pulls in numpy

        ratings = decode_ratings(cached_ratings(path, cache))
    if n_segments is not None:
        for system, block in ratings.items():
            if len(block) != n_segments:
                raise DataFormatError(
                    path, None, f"system {system!r} has {len(block)} lines but the source has {n_segments}"
                )
    return ratings


def cached_ratings(path: Path, cache: "ScoreCache") -> "Parsed":
    """A rating file's parse as the cache holds it (:mod:`tribunal.data.rating_cache`'s arrays)."""
    from tribunal.data.rating_cache import encode_ratings  # heavy: pulls in numpy

    return cache.load(path, "rating", lambda content: encode_ratings(parse_ratings(path, content)))


def parse_ratings(path: Path, content: bytes) -> dict[str, list[Rating]]:
    """The ratings in a rating file's bytes (``path`` names it in errors)."""
    ratings: dict[str, list[Rating]] = {}
    for number, line in enumerate(split_lines(path, content), 1):
        system, sep, payload = line.partition("\t")
        if not sep or "\t" in payload:
            raise DataFormatError(path, number, "expected 2 tab-separated columns (SYSTEM, rating)")
        block = ratings.setdefault(system, [])
        if payload == "None":
            block.append(None)
            continue
        try:
            data = json.loads(payload)
        except json.JSONDecodeError as err:
            raise DataFormatError(path, number, f"rating is not JSON: {err.msg}") from None
        if not isinstance(data, dict) or not isinstance(data.get("errors"), list):
            raise DataFormatError(path, number, 'rating must be an object with an "errors" list')
        block.append(tuple(_parse_error(path, number, e) for e in data["errors"]))
    return ratings
